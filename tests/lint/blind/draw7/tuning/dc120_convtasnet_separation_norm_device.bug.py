# devcheck bug corpus: DC120
# From: https://github.com/JusperLee/Conv-TasNet/issues/12
# Separation.py rescales each separated speaker by the mixture's infinity
# norm; the norm is computed from the mixture on the GPU, while the estimates
# have already been copied to the host with .cpu(), so the rescaling mixes a
# CUDA tensor with CPU tensors.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torchaudio
from Conv_TasNet import ConvTasNet
from option import parse


class AudioReader:
    def __init__(self, scp_path, sample_rate=8000):
        with open(scp_path) as f:
            self.items = [line.split() for line in f if line.strip()]
        self.sample_rate = sample_rate

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        for key, path in self.items:
            wav, _ = torchaudio.load(path)
            yield key, wav[0]


class Separation:
    def __init__(self, mix_path, yaml_path, model_path, gpuid):
        self.mix = AudioReader(mix_path, sample_rate=8000)
        opt = parse(yaml_path, is_tain=False)
        net = ConvTasNet(**opt["net_conf"])
        checkpoint = torch.load(model_path, map_location="cpu")
        net.load_state_dict(checkpoint["model_state_dict"])
        self.net = net.cuda()
        self.device = torch.device("cuda:{}".format(gpuid[0]) if len(gpuid) > 0 else "cpu")
        self.gpuid = tuple(gpuid)

    def inference(self, out_dir):
        with torch.no_grad():
            for key, egs in self.mix:
                egs = egs.to(self.device)
                norm = torch.norm(egs, float("inf"))
                ests = self.net(egs)
                spks = [torch.squeeze(s.detach().cpu()) for s in ests]
                for index, s in enumerate(spks, start=1):
                    s = s[: egs.shape[0]]
                    s = s * norm / torch.max(torch.abs(s))  # <- bug
                    os.makedirs(os.path.join(out_dir, "spk%d" % index), exist_ok=True)
                    torchaudio.save(os.path.join(out_dir, "spk%d" % index, key), s.unsqueeze(0), 8000)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-mix_scp", type=str, default="../create_scp/tt_mix.scp")
    parser.add_argument("-yaml", type=str, default="./options/train/train.yml")
    parser.add_argument("-model", type=str, default="./checkpoint/best.pt")
    parser.add_argument("-gpuid", type=str, default="0")
    parser.add_argument("-save_path", type=str, default="./result")
    args = parser.parse_args()
    gpuid = [int(i) for i in args.gpuid.split(",")]
    Separation(args.mix_scp, args.yaml, args.model, gpuid).inference(args.save_path)


if __name__ == "__main__":
    main()
