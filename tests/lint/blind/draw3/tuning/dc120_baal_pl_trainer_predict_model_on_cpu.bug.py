# devcheck bug corpus: DC120
# From: https://github.com/baal-org/baal/pull/80
# BaaL's Lightning trainer predicts on the unlabelled pool after each round
# of training. PyTorch Lightning puts the model back on the CPU when fit()
# ends, but the prediction loop moved each pool batch to the GPU (when the
# trainer runs on one) and ran the model as it was: CPU weights, CUDA
# inputs. The fix puts the model on the trainer's GPU before predicting and
# back on the CPU after.
# Written for devcheck's tests after the thread; not the project's code.
import sys
from collections.abc import Sequence

import numpy as np
import torch
from pytorch_lightning import Trainer
from tqdm import tqdm


def to_cuda(data):
    if isinstance(data, (list, tuple)):
        return type(data)(to_cuda(d) for d in data)
    return data.cuda()


def map_on_tensor(fn, val):
    if isinstance(val, (list, tuple)):
        return [map_on_tensor(fn, v) for v in val]
    return fn(val)


def mc_inference(model, data, iterations):
    return torch.stack([model(data) for _ in range(iterations)], dim=-1)


class BaalTrainer(Trainer):
    def predict_on_dataset(self, *args, **kwargs):
        preds = list(self.predict_on_dataset_generator())
        if len(preds) > 0 and not isinstance(preds[0], Sequence):
            return np.vstack(preds)
        return [np.vstack(pr) for pr in zip(*preds)]

    def predict_on_dataset_generator(self, *args, **kwargs):
        model = self.get_model()
        model.eval()
        dataloader = model.pool_loader()
        if len(dataloader) == 0:
            return None
        for idx, (data, _) in enumerate(tqdm(dataloader, total=len(dataloader), file=sys.stdout)):
            if self.on_gpu:
                data = to_cuda(data)
            pred = mc_inference(model, data, model.hparams.iterations)  # <- bug
            yield map_on_tensor(lambda x: x.detach().cpu().numpy(), pred)
