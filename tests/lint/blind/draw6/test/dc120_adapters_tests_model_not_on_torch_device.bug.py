# devcheck bug corpus: DC120
# From: https://github.com/adapter-hub/adapters/pull/256
# The adapter tests build their input ids on transformers' torch_device (the
# GPU when the suite runs on one) but build the models from a config on the
# CPU and never move them: on a GPU runner every forward pass gets CUDA ids
# with CPU embeddings.
# Written for devcheck's tests after the thread; not the project's code.
import random
import tempfile
import unittest

import torch
from transformers import BertConfig, BertModel
from transformers.testing_utils import require_torch, torch_device


def create_twin_models(model_class, config_creator):
    model1 = model_class(config_creator())
    model1.eval()
    model2 = model_class(config_creator())
    model2.load_state_dict(model1.state_dict())
    model2.eval()
    return model1, model2


class AdapterTestBase:
    model_class = BertModel
    config = staticmethod(
        lambda: BertConfig(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=37)
    )

    def get_model(self):
        return self.model_class(self.config())  # <- bug

    def get_input_samples(self, shape, vocab_size=5000, config=None):
        values = [random.randint(0, vocab_size - 1) for _ in range(shape[0] * shape[1])]
        input_ids = torch.tensor(values, dtype=torch.long, device=torch_device).view(shape)
        return {"input_ids": input_ids}


class AdapterModelTestMixin:
    def test_forward_adapter(self):
        model = self.get_model()
        model.add_adapter("dummy", config="pfeiffer")
        model.set_active_adapters("dummy")
        model.eval()
        input_data = self.get_input_samples((1, 128), config=model.config)
        adapter_output = model(**input_data)
        model.set_active_adapters(None)
        base_output = model(**input_data)
        self.assertFalse(torch.equal(adapter_output[0], base_output[0]))

    def test_load_adapter(self):
        model1, model2 = create_twin_models(self.model_class, self.config)
        model1.add_adapter("dummy", config="houlsby")
        with tempfile.TemporaryDirectory() as temp_dir:
            model1.save_adapter(temp_dir, "dummy")
            model2.load_adapter(temp_dir)
        model1.set_active_adapters("dummy")
        model2.set_active_adapters("dummy")
        input_data = self.get_input_samples((1, 128), config=model1.config)
        output1 = model1(**input_data)  # <- bug
        output2 = model2(**input_data)  # <- bug
        self.assertTrue(torch.allclose(output1[0], output2[0], atol=1e-4))


@require_torch
class BertAdapterTest(AdapterModelTestMixin, AdapterTestBase, unittest.TestCase):
    pass
