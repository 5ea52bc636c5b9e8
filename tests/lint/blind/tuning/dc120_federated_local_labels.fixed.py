# devcheck bug corpus: DC120
# From: https://github.com/shaoxiongji/federated-learning/issues/4
# Federated averaging: each client's LocalUpdate.train received a copy of the
# global network moved to args.device and moved the images of each batch but
# not the labels: the loss failed with "Expected object of backend CUDA but got
# backend CPU for argument #2 'target'".
# Written for devcheck's tests after the thread; not the project's code.
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class LocalUpdate:
    def __init__(self, args, dataset, idxs):
        self.args = args
        self.loss_func = nn.CrossEntropyLoss()
        self.ldr_train = DataLoader(torch.utils.data.Subset(dataset, idxs), batch_size=args.local_bs, shuffle=True)

    def train(self, net):
        net.train()
        optimizer = torch.optim.SGD(net.parameters(), lr=self.args.lr)
        for images, labels in self.ldr_train:
            images, labels = images.to(self.args.device), labels.to(self.args.device)  # <- fixed
            log_probs = net(images)
            loss = self.loss_func(log_probs, labels)  # <- fixed
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return net.state_dict(), loss.item()


def main(args, dataset, dict_users, net_glob):
    for idx in dict_users:
        local = LocalUpdate(args=args, dataset=dataset, idxs=dict_users[idx])
        w, loss = local.train(net=copy.deepcopy(net_glob).to(args.device))
