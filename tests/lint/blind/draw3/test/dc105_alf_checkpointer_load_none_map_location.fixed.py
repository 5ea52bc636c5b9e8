# devcheck bug corpus: DC105
# From: https://github.com/HorizonRobotics/alf/pull/1532
# Fixed: the Checkpointer always loads with map_location=torch.device("cpu")
# (load_state_dict copies the values to wherever the modules are), so no
# GPU memory surge at load.
# Written for devcheck's tests after the thread; not the project's code.
import glob
import os

import torch
import torch.nn as nn


class Checkpointer(object):
    def __init__(self, ckpt_dir, **kwargs):
        self._modules = kwargs
        self._ckpt_dir = ckpt_dir
        self._global_step = -1
        os.makedirs(self._ckpt_dir, exist_ok=True)

    def save(self, global_step):
        self._global_step = global_step
        state = {k: v.state_dict() for k, v in self._modules.items()}
        state["global_step"] = global_step
        torch.save(state, os.path.join(self._ckpt_dir, "ckpt-{0}".format(global_step)))

    def _latest_step(self):
        steps = [int(os.path.basename(f)[5:]) for f in glob.glob(os.path.join(self._ckpt_dir, "ckpt-*")) if os.path.basename(f)[5:].isdigit()]
        return max(steps) if steps else None

    def load(self, global_step="latest", including_optimizer=True):
        if global_step == "latest":
            global_step = self._latest_step()
        if global_step is None:
            return self._global_step
        f_path = os.path.join(self._ckpt_dir, "ckpt-{0}".format(global_step))
        map_location = torch.device("cpu")  # <- fixed
        checkpoint = torch.load(f_path, map_location=map_location)  # <- fixed
        if including_optimizer and os.path.isfile(f_path + "-optimizer"):
            opt_checkpoint = torch.load(f_path + "-optimizer", map_location=map_location)  # <- fixed
            for k, v in opt_checkpoint.items():
                if isinstance(v, dict):
                    checkpoint[k].update(v)
        self._global_step = checkpoint["global_step"]
        for k, module in self._modules.items():
            if isinstance(module, nn.Module):
                module.load_state_dict(checkpoint[k], strict=False)
            else:
                module.load_state_dict(checkpoint[k])
        return self._global_step


def resume(ckpt_dir, device):
    alg = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 8)).to(device)
    opt = torch.optim.Adam(alg.parameters(), lr=1e-4)
    ckpt_mngr = Checkpointer(ckpt_dir, alg=alg, opt=opt)
    return ckpt_mngr.load("latest")
