# devcheck bug corpus: DC120
# From: https://github.com/NeuracoreAI/neuracore/pull/34
# The algorithm's unit tests build the model and the sample batches on the
# CPU and call it as they are; but the model's base class picks
# self.device = cuda when a GPU is there and makes its normalisation
# statistics on it, so on a GPU machine `pytest tests/` fails with tensors on
# two devices.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import pytest
import torch
import torch.nn as nn

from neuracore.core.nc_types import DataItemStats, DatasetDescription, DataType, ModelInitDescription
from neuracore.ml import BatchedInferenceSamples, BatchedTrainingSamples, MaskableData
from neuracore.ml.algorithms.cnnmlp.cnnmlp import CNNMLP
from neuracore.ml.ml_types import BatchedData

BS = 2
JOINTS = 16
HORIZON = 5


def _stats():
    return DataItemStats(mean=np.zeros(JOINTS), std=np.ones(JOINTS))


@pytest.fixture
def model_init_description():
    description = DatasetDescription(
        joint_positions=_stats(), joint_target_positions=_stats(), max_num_rgb_images=1
    )
    return ModelInitDescription(
        dataset_description=description,
        input_data_types=[DataType.JOINT_POSITIONS, DataType.RGB_IMAGE],
        output_data_types=[DataType.JOINT_TARGET_POSITIONS],
        output_prediction_horizon=HORIZON,
    )


def _joints():
    return MaskableData(torch.randn(BS, JOINTS), torch.ones(BS, JOINTS))


def _images():
    return MaskableData(torch.randn(BS, 1, 3, 96, 96), torch.ones(BS, 1))


@pytest.fixture
def sample_inference_batch():
    return BatchedInferenceSamples(joint_positions=_joints(), rgb_images=_images())


@pytest.fixture
def sample_batch():
    targets = MaskableData(torch.randn(BS, HORIZON, JOINTS), torch.ones(BS, HORIZON, JOINTS))
    return BatchedTrainingSamples(
        inputs=BatchedData(joint_positions=_joints(), rgb_images=_images()),
        outputs=BatchedData(joint_target_positions=targets),
        output_predicition_mask=torch.ones(BS, HORIZON),
    )


def test_model_construction(model_init_description):
    model = CNNMLP(model_init_description)
    assert isinstance(model, nn.Module)


def test_model_forward(model_init_description, sample_inference_batch):
    model = CNNMLP(model_init_description)
    output = model(sample_inference_batch)  # <- bug
    assert output.outputs[DataType.JOINT_TARGET_POSITIONS].shape == (BS, HORIZON, JOINTS)


def test_model_backward(model_init_description, sample_batch):
    model = CNNMLP(model_init_description)
    output = model.training_step(sample_batch)  # <- bug
    output.losses["mse_loss"].backward()
    for name, param in model.named_parameters():
        if param.requires_grad:
            assert param.grad is not None
            assert torch.isfinite(param.grad).all()
