# devcheck bug corpus: DC105
# From: https://github.com/YuanxunLu/LiveSpeechPortraits/pull/89
# Fixed: the APC checkpoint is loaded with map_location=device, the device
# given by --device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
from os.path import join

import numpy as np
import torch
import torch.nn as nn
import yaml


class APC_encoder(nn.Module):
    def __init__(self, mel_dim, hidden_size, num_layers, residual):
        super().__init__()
        self.residual = residual
        self.prenet = nn.Linear(mel_dim, hidden_size)
        self.rnns = nn.ModuleList([nn.GRU(hidden_size, hidden_size, batch_first=True) for _ in range(num_layers)])

    def forward(self, mel):
        h = self.prenet(mel)
        for rnn in self.rnns:
            out, _ = rnn(h)
            h = h + out if self.residual else out
        return h


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--id", default="May")
    parser.add_argument("--driving_audio", default="./data/input/00083.wav")
    parser.add_argument("--device", type=str, default="cpu", help="use cuda for GPU or use cpu for CPU")
    opt = parser.parse_args()
    device = torch.device(opt.device)
    with open(join("./config/", opt.id + ".yaml")) as f:
        config = yaml.safe_load(f)
    apc = config["model_params"]["APC"]

    print("---------- Loading Model: APC-------------")
    APC_model = APC_encoder(apc["mel_dim"], apc["hidden_size"], apc["num_layers"], apc["residual"])
    APC_model.load_state_dict(torch.load(apc["ckp_path"], map_location=device), strict=False)  # <- fixed
    if opt.device == "cuda":
        APC_model.cuda()
    APC_model.eval()

    mel = np.load(join("./data/", opt.id, "mel.npy")).astype(np.float32)
    with torch.no_grad():
        feats = APC_model(torch.from_numpy(mel).unsqueeze(0).to(device))
    np.save(join("./results/", opt.id, "APC_feat.npy"), feats.cpu().numpy())
