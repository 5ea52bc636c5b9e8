# devcheck bug corpus: DC105
# From: https://github.com/AMAAI-Lab/Music2Emotion/pull/9
# Fixed: the checkpoint is loaded with map_location=self.device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class FeatureRegressor(nn.Module):
    def __init__(self, in_dim=768, out_dim=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 256), nn.ReLU(), nn.Linear(256, out_dim))

    def forward(self, x):
        return self.net(x)


class Music2Emo:
    def __init__(self, model_file="checkpoints/emotion.ckpt"):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = FeatureRegressor()
        checkpoint = torch.load(model_file, map_location=self.device)  # <- fixed
        self.model.load_state_dict(checkpoint["state_dict"])
        self.model.to(self.device)
        self.model.eval()

    def predict(self, features):
        with torch.no_grad():
            valence, arousal = self.model(features.to(self.device)).squeeze(0).tolist()
        return {"valence": valence, "arousal": arousal}


if __name__ == "__main__":
    print(Music2Emo().predict(torch.randn(1, 768)))
