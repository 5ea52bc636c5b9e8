# devcheck bug corpus: DC105
# From: https://github.com/deepmodeling/DeePTB/pull/178
# NNENV.from_reference() (and MIX's) rebuilds a model from a checkpoint and
# takes a device argument for the new model, but read the checkpoint with
# torch.load(checkpoint) and no map_location: a model trained on CUDA could
# not be loaded to run on a CPU-only machine.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Union

import torch
import torch.nn as nn


class NNENV(nn.Module):
    name = "nnenv"

    def __init__(self, embedding: dict, prediction: dict, dtype=torch.float32,
                 device: Union[str, torch.device] = "cpu", basis=None, overlap=False, transform=True):
        super().__init__()
        self.embed = nn.Linear(embedding.get("n_features", 16), embedding.get("n_hidden", 32))
        self.predict = nn.Linear(embedding.get("n_hidden", 32), prediction.get("n_out", 8))
        self.to(device=device, dtype=dtype)
        self.config = {"model_options": {"embedding": embedding, "prediction": prediction},
                       "common_options": {"dtype": dtype, "device": device, "basis": basis, "overlap": overlap}}

    def forward(self, x):
        return self.predict(torch.tanh(self.embed(x)))

    @classmethod
    def from_reference(cls, checkpoint, embedding: dict = {}, prediction: dict = {}, overlap: bool = None,
                       basis=None, dtype=None, device: Union[str, torch.device] = None, transform=True):
        ckpt = torch.load(checkpoint)  # <- bug
        common_options = {"dtype": dtype, "device": device, "basis": basis, "overlap": overlap}
        model_options = {"embedding": embedding, "prediction": prediction}
        if len(embedding) == 0 or len(prediction) == 0:
            model_options.update(ckpt["config"]["model_options"])
        for k, v in common_options.items():
            if v is None:
                common_options[k] = ckpt["config"]["common_options"][k]
        model = cls(**model_options, **common_options, transform=transform)
        model.load_state_dict(ckpt["model_state_dict"])
        del ckpt
        return model


if __name__ == "__main__":
    model = NNENV.from_reference("best_nnenv.pth", device="cpu")
    print(model(torch.randn(4, 16)).shape)
