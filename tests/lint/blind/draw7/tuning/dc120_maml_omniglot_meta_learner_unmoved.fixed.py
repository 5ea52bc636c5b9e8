# devcheck bug corpus: DC120
# From: https://github.com/dragen1860/MAML-Pytorch/pull/13
# Fixed: the training script moves the MAML model to the chosen device when it
# makes it (.to(device)); its parameters move in place, so the Adam optimizer
# made in __init__ steps them on the GPU beside the episodes.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import numpy as np
import torch
from torch import nn, optim
from torch.nn import functional as F


class Learner(nn.Module):
    def __init__(self, n_way, ch=32):
        super().__init__()
        self.vars = nn.ParameterList()
        in_ch = 3
        for _ in range(4):
            w = nn.Parameter(torch.empty(ch, in_ch, 3, 3))
            nn.init.xavier_normal_(w)
            self.vars.append(w)
            self.vars.append(nn.Parameter(torch.zeros(ch)))
            in_ch = ch
        fc = nn.Parameter(torch.empty(n_way, ch * 3 * 3))
        nn.init.xavier_normal_(fc)
        self.vars.append(fc)
        self.vars.append(nn.Parameter(torch.zeros(n_way)))

    def forward(self, x, vars=None):
        vars = list(self.vars) if vars is None else vars
        for i in range(4):
            x = F.conv2d(x, vars[2 * i], vars[2 * i + 1], stride=2, padding=1)
            x = F.relu(F.batch_norm(x, None, None, training=True))
        x = F.adaptive_avg_pool2d(x, 3).flatten(1)
        return F.linear(x, vars[8], vars[9])


class MAML(nn.Module):
    def __init__(self, n_way, k_shot, k_query, meta_batchsz, K, meta_lr, train_lr):
        super().__init__()
        self.K = K
        self.train_lr = train_lr
        self.net = Learner(n_way)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=meta_lr)

    def forward(self, support_x, support_y, query_x, query_y):
        losses_q, corrects = [], 0
        for i in range(support_x.size(0)):
            fast = list(self.net.parameters())
            for _ in range(self.K):
                loss = F.cross_entropy(self.net(support_x[i], fast), support_y[i])
                grads = torch.autograd.grad(loss, fast, create_graph=True)
                fast = [w - self.train_lr * g for w, g in zip(fast, grads)]
            logits_q = self.net(query_x[i], fast)
            losses_q.append(F.cross_entropy(logits_q, query_y[i]))
            corrects += (logits_q.argmax(1) == query_y[i]).sum().item()
        self.meta_optim.zero_grad()
        torch.stack(losses_q).mean().backward()
        self.meta_optim.step()
        return corrects / (query_y.numel())


class OmniglotNShot:
    def __init__(self, batchsz, n_way, k_shot, k_query, imgsz):
        self.shape = (batchsz, n_way, k_shot, k_query, imgsz)

    def get_batch(self):
        b, n, k, q, s = self.shape
        sx = np.random.rand(b, n * k, s, s, 1).astype(np.float32)
        qx = np.random.rand(b, n * q, s, s, 1).astype(np.float32)
        sy = np.tile(np.repeat(np.arange(n), k), (b, 1))
        qy = np.tile(np.repeat(np.arange(n), q), (b, 1))
        return sx, sy, qx, qy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=5)
    parser.add_argument("-k", type=int, default=1)
    parser.add_argument("-b", type=int, default=32)
    parser.add_argument("-l", type=float, default=1e-3)
    args = parser.parse_args()
    k_query = 15
    device = torch.device("cuda:0")
    net = MAML(args.n, args.k, k_query, args.b, 5, args.l, 0.4).to(device)  # <- fixed
    db = OmniglotNShot(args.b, args.n, args.k, k_query, imgsz=28)
    for step in range(100000):
        sx, sy, qx, qy = db.get_batch()
        support_x = torch.from_numpy(sx).permute(0, 1, 4, 2, 3).repeat(1, 1, 3, 1, 1).to(device)
        query_x = torch.from_numpy(qx).permute(0, 1, 4, 2, 3).repeat(1, 1, 3, 1, 1).to(device)
        support_y = torch.from_numpy(sy).long().to(device)
        query_y = torch.from_numpy(qy).long().to(device)
        acc = net(support_x, support_y, query_x, query_y)
        if step % 20 == 0:
            print(step, acc)


if __name__ == "__main__":
    main()
