# devcheck bug corpus: DC105
# From: https://github.com/lucidrains/imagen-pytorch/pull/132
# Fixed: the checkpoint is loaded with map_location='cpu'; load_state_dict
# and copy_ put the values where each process's modules are.
# Written for devcheck's tests after the thread; not the project's code.
from pathlib import Path

import torch
from accelerate import Accelerator
from torch import nn

__version__ = "0.12.0"


class ImagenTrainer(nn.Module):
    def __init__(self, imagen, lr=1e-4, num_unets=2):
        super().__init__()
        self.accelerator = Accelerator()
        self.imagen = imagen
        self.num_unets = num_unets
        self.register_buffer("steps", torch.zeros(num_unets, dtype=torch.long))
        for ind, unet in enumerate(imagen.unets):
            optimizer = torch.optim.Adam(unet.parameters(), lr=lr)
            setattr(self, f"optim{ind}", optimizer)
        self.imagen, *optims = self.accelerator.prepare(self.imagen, *[getattr(self, f"optim{i}") for i in range(num_unets)])
        for ind, optimizer in enumerate(optims):
            setattr(self, f"optim{ind}", optimizer)
        self.to(self.accelerator.device)

    @property
    def is_local_main(self):
        return self.accelerator.is_local_main_process

    def save(self, path, overwrite=True):
        self.accelerator.wait_for_everyone()
        if not self.is_local_main:
            return
        path = Path(path)
        assert not (path.exists() and not overwrite)
        save_obj = dict(model=self.imagen.state_dict(), version=__version__, steps=self.steps.cpu())
        for ind in range(self.num_unets):
            save_obj[f"optim{ind}"] = getattr(self, f"optim{ind}").state_dict()
        torch.save(save_obj, str(path))

    def load(self, path, only_model=False, strict=True, noop_if_not_exist=False):
        path = Path(path)
        if noop_if_not_exist and not path.exists():
            return
        assert path.exists()
        loaded_obj = torch.load(str(path), map_location="cpu")  # <- fixed
        self.imagen.load_state_dict(loaded_obj["model"], strict=strict)
        self.steps.copy_(loaded_obj["steps"])
        if only_model:
            return loaded_obj
        for ind in range(self.num_unets):
            getattr(self, f"optim{ind}").load_state_dict(loaded_obj[f"optim{ind}"])
        return loaded_obj
