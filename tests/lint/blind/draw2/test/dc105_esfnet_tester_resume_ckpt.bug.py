# devcheck bug corpus: DC105
# From: https://github.com/mrluin/ESFNet-Pytorch/pull/17
# ESFNet's tester picks the CPU when --gpu is -1 and moves the model, the
# loss and its class weights there, then restores the trained checkpoint
# with torch.load(self.resume_ckpt_path). The checkpoint was saved from GPU
# training, so on a machine without a GPU the load itself failed. The pull
# request ("Ability to use CPU even if you don't have GPU"), as the
# maintainer asked in review: pass self.device as map_location.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torch.nn as nn
import torch.optim as optim


class BaseTester:
    def __init__(self, model, args, test_data_loader, resume_file, loss_weight, save_dir="./checkpoints"):
        self.args = args
        self.device = torch.device("cpu") if self.args.gpu == -1 else torch.device("cuda:{}".format(self.args.gpu))
        self.model = model.to(self.device)
        self.loss_weight = loss_weight.to(self.device)
        self.loss = nn.CrossEntropyLoss(weight=self.loss_weight).to(self.device)
        self.optimizer = optim.Adam(self.model.parameters(), lr=1e-3)
        self.test_data_loader = test_data_loader
        self.resume_ckpt_path = resume_file if resume_file is not None else os.path.join(
            save_dir, "checkpoint-best.pth"
        )

    def _resume_ckpt(self):
        print("     + Loading ckpt path : {} ...".format(self.resume_ckpt_path))
        checkpoint = torch.load(self.resume_ckpt_path)  # <- bug
        self.model.load_state_dict(checkpoint["state_dict"])
        self.optimizer.load_state_dict(checkpoint["optimizer"])

    def eval_and_predict(self):
        self._resume_ckpt()
        self.model.eval()
        total_loss = 0.0
        with torch.no_grad():
            for data, target in self.test_data_loader:
                data, target = data.to(self.device), target.to(self.device)
                total_loss += self.loss(self.model(data), target).item()
        return total_loss / len(self.test_data_loader)


def main(model, test_loader):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", type=int, default=-1)
    parser.add_argument("--weight", type=str, default=None)
    args = parser.parse_args()
    tester = BaseTester(model, args, test_loader, args.weight, loss_weight=torch.tensor([1.0, 10.0]))
    print(tester.eval_and_predict())
