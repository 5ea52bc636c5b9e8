# devcheck bug corpus: DC111
# From: https://github.com/Shawn1993/cnn-text-classification-pytorch/issues/1
# From: https://github.com/Shawn1993/cnn-text-classification-pytorch/commit/0e47f985c84c31d176b1f8d4cc3c8d31b4be5650
# CNN_Text keeps its convolutions of several kernel sizes in a plain Python list, so
# they are not submodules: model.cuda() in train() moves the embedding and the linear
# layer but leaves the convolutions on the CPU, and the first batch on the GPU fails
# in them (their weights are not even in model.parameters()).
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class CNN_Text(nn.Module):
    def __init__(self, args):
        super().__init__()
        V, D, C = args.embed_num, args.embed_dim, args.class_num
        Ci, Co, Ks = 1, args.kernel_num, args.kernel_sizes
        self.embed = nn.Embedding(V, D)
        self.convs1 = [nn.Conv2d(Ci, Co, (K, D)) for K in Ks]  # <- bug
        self.dropout = nn.Dropout(args.dropout)
        self.fc1 = nn.Linear(len(Ks) * Co, C)

    def forward(self, x):
        x = self.embed(x).unsqueeze(1)
        x = [F.relu(conv(x)).squeeze(3) for conv in self.convs1]
        x = [F.max_pool1d(i, i.size(2)).squeeze(2) for i in x]
        x = torch.cat(x, 1)
        return self.fc1(self.dropout(x))


def train(train_iter, model, args):
    if args.cuda:
        model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model.train()
    steps = 0
    for epoch in range(1, args.epochs + 1):
        for feature, target in train_iter:
            if args.cuda:
                feature, target = feature.cuda(), target.cuda()
            optimizer.zero_grad()
            logit = model(feature)
            loss = F.cross_entropy(logit, target)
            loss.backward()
            optimizer.step()
            steps += 1
            if steps % args.save_interval == 0:
                os.makedirs(args.save_dir, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(args.save_dir, "snapshot_steps%d.pt" % steps))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-lr", type=float, default=0.001)
    parser.add_argument("-epochs", type=int, default=256)
    parser.add_argument("-embed-dim", type=int, default=128)
    parser.add_argument("-kernel-num", type=int, default=100)
    parser.add_argument("-kernel-sizes", type=str, default="3,4,5")
    parser.add_argument("-dropout", type=float, default=0.5)
    parser.add_argument("-save-interval", type=int, default=500)
    parser.add_argument("-save-dir", type=str, default="snapshot")
    parser.add_argument("-no-cuda", action="store_true", default=False)
    args = parser.parse_args()
    args.cuda = not args.no_cuda and torch.cuda.is_available()
    args.kernel_sizes = [int(k) for k in args.kernel_sizes.split(",")]
    args.embed_num, args.class_num = 20000, 2
    data = [(torch.randint(0, 20000, (64, 50)), torch.randint(0, 2, (64,))) for _ in range(10)]
    train(data, CNN_Text(args), args)
