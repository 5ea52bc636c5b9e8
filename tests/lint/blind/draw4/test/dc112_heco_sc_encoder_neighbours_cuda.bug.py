# devcheck bug corpus: DC112
# From: https://github.com/liun-online/HeCo/issues/15
# HeCo's training script picks CUDA only when it is available and moves the
# model and features only then, but the network-schema encoder's forward
# stacks the sampled neighbour indices and calls a bare .cuda() on them: on a
# machine without a GPU it fails with "Torch not compiled with CUDA enabled".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

if torch.cuda.is_available():
    device = torch.device("cuda:0")
    torch.cuda.set_device(0)
else:
    device = torch.device("cpu")


class IntraAtt(nn.Module):
    def __init__(self, hidden_dim):
        super().__init__()
        self.att = nn.Parameter(torch.empty(1, 2 * hidden_dim))
        nn.init.xavier_normal_(self.att.data, gain=1.414)
        self.act = nn.LeakyReLU()

    def forward(self, nei, h, h_refer):
        nei_emb = F.embedding(nei, h)
        h_refer = h_refer.unsqueeze(1).expand_as(nei_emb)
        scores = self.act(torch.cat([h_refer, nei_emb], dim=-1).matmul(self.att.t()))
        return (scores.softmax(dim=1) * nei_emb).sum(dim=1)


class ScEncoder(nn.Module):
    def __init__(self, hidden_dim, sample_rate, nei_num):
        super().__init__()
        self.intra = nn.ModuleList([IntraAtt(hidden_dim) for _ in range(nei_num)])
        self.sample_rate = sample_rate
        self.nei_num = nei_num

    def forward(self, nei_h, nei_index):
        embeds = []
        for i in range(self.nei_num):
            picked = []
            k = self.sample_rate[i]
            for node_neis in nei_index[i]:
                replace = len(node_neis) < k
                picked.append(torch.tensor(np.random.choice(node_neis, k, replace=replace))[None])
            picked = torch.cat(picked, dim=0).cuda()  # <- bug
            embeds.append(F.elu(self.intra[i](picked, nei_h[i + 1], nei_h[0])))
        return torch.stack(embeds).mean(dim=0)


def train(epochs=5):
    n_papers, n_authors, dim = 100, 60, 32
    nei_index = [[np.random.randint(0, n_authors, size=np.random.randint(1, 6)) for _ in range(n_papers)]]
    feats = [torch.randn(n_papers, dim), torch.randn(n_authors, dim)]
    model = ScEncoder(dim, sample_rate=[3], nei_num=1)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    if torch.cuda.is_available():
        model.cuda()
        feats = [f.cuda() for f in feats]
    for epoch in range(epochs):
        optimiser.zero_grad()
        z = model(feats, nei_index)
        loss = z.pow(2).mean()
        loss.backward()
        optimiser.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    train()
