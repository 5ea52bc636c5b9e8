# devcheck bug corpus: DC102
# From: https://github.com/dqwang122/HeterSumGraph/issues/36
# HeterSumGraph's training loop reassigns the batched DGL graph it moves to the
# GPU, but the validation loop calls G.to(...) as a statement: a DGL graph's
# to() returns a moved copy and leaves G on the CPU, so the model (on the GPU)
# gets CPU node features and the embedding lookup fails.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import dgl
import torch
import torch.nn as nn


class HSumGraph(nn.Module):
    def __init__(self, vocab_size=50000, emb_dim=300, hidden=300):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim)
        self.proj = nn.Linear(emb_dim, hidden)
        self.classifier = nn.Linear(hidden, 2)

    def forward(self, G):
        snode_id = G.filter_nodes(lambda nodes: nodes.data["dtype"] == 1)
        words = G.nodes[snode_id].data["words"]
        h = torch.relu(self.proj(self.embed(words).mean(1)))
        return self.classifier(h)


class SLTester:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.CrossEntropyLoss(reduction="none")
        self.running_loss = 0.0
        self.batches = 0

    def evaluation(self, G):
        outputs = self.model.forward(G)
        snode_id = G.filter_nodes(lambda nodes: nodes.data["dtype"] == 1)
        label = G.ndata["label"][snode_id].sum(-1)
        self.running_loss += float(self.criterion(outputs, label).mean())
        self.batches += 1


def run_training(model, train_loader, hps):
    optimizer = torch.optim.Adam(model.parameters(), lr=hps.lr)
    criterion = nn.CrossEntropyLoss(reduction="none")
    for G, index in train_loader:
        model.train()
        if hps.cuda:
            G = G.to(torch.device("cuda"))
        outputs = model.forward(G)
        snode_id = G.filter_nodes(lambda nodes: nodes.data["dtype"] == 1)
        label = G.ndata["label"][snode_id].sum(-1)
        loss = criterion(outputs, label).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def run_eval(model, loader, hps):
    model.eval()
    with torch.no_grad():
        tester = SLTester(model)
        for G, index in loader:
            if hps.cuda:
                G.to(torch.device(0))  # <- bug
            tester.evaluation(G)
    return tester.running_loss / max(tester.batches, 1)


def make_batches(n_batches=4):
    batches = []
    for i in range(n_batches):
        g = dgl.graph((torch.arange(9), torch.arange(1, 10)), num_nodes=10)
        g.ndata["dtype"] = torch.tensor([0, 1] * 5)
        g.ndata["words"] = torch.randint(0, 50000, (10, 20))
        g.ndata["label"] = torch.randint(0, 2, (10, 3)).clamp(max=1)
        batches.append((g, i))
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", action="store_true", default=False)
    parser.add_argument("--lr", type=float, default=0.0005)
    hps = parser.parse_args()
    model = HSumGraph()
    if hps.cuda:
        model.to(torch.device(0))
    run_training(model, make_batches(), hps)
    print("valid loss", run_eval(model, make_batches(), hps))


if __name__ == "__main__":
    main()
