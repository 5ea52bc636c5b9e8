# devcheck bug corpus: DC105
# From: https://github.com/resemble-ai/chatterbox/pull/418
# A text-to-speech model's from_local classmethod is given the device to
# run on and loads the checkpoints of its parts with torch.load(path), no
# map_location. The checkpoints were saved on CUDA, so asking for the CPU on
# a machine without a GPU crashed in torch.load. The fix adds map_location
# (the device asked for) to the loads.
# Written for devcheck's tests after the thread; not the project's code.
from pathlib import Path

import torch
import torch.nn as nn


class VoiceEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(40, 256, 3, batch_first=True)
        self.proj = nn.Linear(256, 256)

    def forward(self, mels):
        _, (h, _) = self.lstm(mels)
        return self.proj(h[-1])


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 80))

    def forward(self, emb):
        return self.net(emb)


class TTS:
    def __init__(self, ve, decoder, device):
        self.ve = ve
        self.decoder = decoder
        self.device = device

    @classmethod
    def from_local(cls, ckpt_dir, device):
        ckpt_dir = Path(ckpt_dir)
        ve = VoiceEncoder()
        ve.load_state_dict(torch.load(ckpt_dir / "ve.pt"))  # <- bug
        ve.to(device).eval()
        decoder = Decoder()
        decoder.load_state_dict(torch.load(ckpt_dir / "decoder.pt"))  # <- bug
        decoder.to(device).eval()
        return cls(ve, decoder, device)

    def generate(self, mels):
        with torch.no_grad():
            return self.decoder(self.ve(mels.to(self.device)))


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tts = TTS.from_local("checkpoints", device)
    print(tts.generate(torch.randn(1, 50, 40)).shape)
