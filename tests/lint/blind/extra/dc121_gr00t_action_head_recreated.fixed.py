# devcheck bug corpus: DC121
# From: https://github.com/NVIDIA/Isaac-GR00T/issues/280
# From: https://github.com/NVIDIA/Isaac-GR00T/pull/294
# The fix: the model is moved once the action head has been replaced.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ActionHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.decoder = nn.Linear(config.hidden, config.action_dim * config.action_horizon)

    def forward(self, features):
        return self.decoder(features)


class Policy:
    def __init__(self, model_path, horizon, device):
        self.device = device
        self.horizon = horizon
        self.model = self._load_model(model_path)

    def _load_model(self, model_path):
        model = torch.load(model_path, map_location="cpu", weights_only=False)
        model.eval()
        if self.horizon != model.action_head.config.action_horizon:
            config = model.action_head.config
            config.action_horizon = self.horizon
            new_head = ActionHead(config)
            new_head.load_state_dict(model.action_head.state_dict(), strict=False)
            model.action_head = new_head  # <- fixed
        model.to(device=self.device)  # <- fixed
        return model
