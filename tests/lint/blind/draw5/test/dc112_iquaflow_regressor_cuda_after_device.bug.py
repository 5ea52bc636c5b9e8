# devcheck bug corpus: DC112
# From: https://github.com/satellogic/iquaflow/pull/9
# iquaflow's quality Regressor builds its device from the --gpus option
# (e.g. cuda:1) and moves the network there, but then, whenever CUDA is on,
# calls a bare .cuda() on the criterion, the network and every input, which
# sends them to the current device, cuda:0, instead of the chosen card.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class Regressor:
    def __init__(self, args):
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
        self.criterion = nn.BCELoss()
        self.cuda = args.cuda
        self.gpus = args.gpus
        self.seed = args.seed
        self.checkpoint_path = args.ckpt_path
        self.device = torch.device("cuda:" + ",".join(self.gpus) if torch.cuda.is_available() else "cpu")
        self.net = self.net.to(self.device)
        if "cuda" in self.device.type:
            self.cuda = True
        if self.cuda:
            torch.cuda.empty_cache()
            torch.cuda.manual_seed(self.seed)
            self.criterion = self.criterion.cuda()  # <- bug
            self.net = self.net.cuda()  # <- bug

    def load_ckpt(self):
        self.net.load_state_dict(torch.load(self.checkpoint_path, map_location=self.device))
        self.net = self.net.to(self.device)
        if self.cuda:
            self.net = self.net.cuda()  # <- bug
        return True

    def deploy(self, loader):
        self.net.eval()
        preds = []
        with torch.no_grad():
            for x, _ in loader:
                x = x.to(self.device)
                if self.cuda:
                    x = x.cuda()  # <- bug
                preds.append(torch.sigmoid(self.net(x)).cpu())
        return torch.cat(preds)

    def deploy_single(self, image_tensor):
        image_tensor = image_tensor.to(self.device)
        if self.cuda:
            image_tensor = image_tensor.cuda()  # <- bug
        return self.net(image_tensor)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--gpus", nargs="+", default=["1"])
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--ckpt_path", default="checkpoint.pth")
    regressor = Regressor(parser.parse_args())
    regressor.load_ckpt()
    print(regressor.deploy_single(torch.rand(1, 3, 64, 64)))
