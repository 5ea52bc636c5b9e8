# devcheck bug corpus: DC105
# From: https://github.com/gaomingqi/Track-Anything/pull/48
# Track-Anything's XMem network reads its checkpoint in init_hyperparameters
# with torch.load(model_path, map_location=map_location), map_location
# defaulting to None, and the tracker builds it as XMem(config, checkpoint)
# before .to(device): on a CPU-only machine the CUDA-saved XMem weights fail
# to load.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import yaml


class XMem(nn.Module):
    def __init__(self, config, model_path=None, map_location=None):
        """map_location is for converting models saved in cuda to cpu"""
        super().__init__()
        model_weights = self.init_hyperparameters(config, model_path, map_location)
        self.key_encoder = nn.Conv2d(3, 1024, 16, stride=16)
        self.key_proj = nn.Conv2d(1024, self.key_dim, 1)
        self.value_encoder = nn.Conv2d(4, self.value_dim, 16, stride=16)
        if model_weights is not None:
            self.load_state_dict(model_weights, strict=False)

    def init_hyperparameters(self, config, model_path=None, map_location=None):
        if model_path is not None:
            model_weights = torch.load(model_path, map_location=map_location)  # <- bug
            self.key_dim = model_weights["key_proj.weight"].shape[0]
            self.value_dim = model_weights["value_encoder.weight"].shape[0]
        else:
            model_weights = None
            self.key_dim = config.get("key_dim", 64)
            self.value_dim = config.get("value_dim", 512)
        return model_weights

    def forward(self, frame, mask):
        key = self.key_proj(self.key_encoder(frame))
        value = self.value_encoder(torch.cat([frame, mask], dim=1))
        return key, value


class BaseTracker:
    def __init__(self, xmem_checkpoint, device):
        with open("tracker/config/config.yaml") as stream:
            config = yaml.safe_load(stream)
        network = XMem(config, xmem_checkpoint).to(device).eval()  # <- bug
        self.network = network
        self.device = device

    @torch.no_grad()
    def track(self, frame, mask):
        frame = torch.from_numpy(frame).permute(2, 0, 1)[None].float().div(255).to(self.device)
        mask = torch.from_numpy(mask)[None, None].float().to(self.device)
        key, value = self.network(frame, mask)
        return key.cpu().numpy(), value.cpu().numpy()


if __name__ == "__main__":
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    tracker = BaseTracker("checkpoints/XMem-s012.pth", device)
    frame = np.zeros((480, 864, 3), dtype=np.uint8)
    mask = np.zeros((480, 864), dtype=np.uint8)
    print([a.shape for a in tracker.track(frame, mask)])
