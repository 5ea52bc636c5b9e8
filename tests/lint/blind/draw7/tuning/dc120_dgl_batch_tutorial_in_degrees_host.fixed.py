# devcheck bug corpus: DC120
# From: https://github.com/dmlc/dgl/issues/1594
# Fixed as the thread's answer explains: moving the graph moves its node and
# edge data only, so the in-degrees computed from its structure are moved to
# the device of the classifier's weights before the first layer.
# Written for devcheck's tests after the thread; not the project's code.
import dgl
import dgl.function as fn
import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.data import MiniGCDataset
from torch.utils.data import DataLoader

msg = fn.copy_u("h", "m")
reduce = fn.mean("m", "h")


class NodeApplyModule(nn.Module):
    def __init__(self, in_feats, out_feats, activation):
        super().__init__()
        self.linear = nn.Linear(in_feats, out_feats)
        self.activation = activation

    def forward(self, node):
        return {"h": self.activation(self.linear(node.data["h"]))}


class GCN(nn.Module):
    def __init__(self, in_feats, out_feats, activation):
        super().__init__()
        self.apply_mod = NodeApplyModule(in_feats, out_feats, activation)

    def forward(self, g, feature):
        g.ndata["h"] = feature
        g.update_all(msg, reduce)
        g.apply_nodes(func=self.apply_mod)
        return g.ndata.pop("h")


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden_dim, n_classes):
        super().__init__()
        self.layers = nn.ModuleList([GCN(in_dim, hidden_dim, F.relu), GCN(hidden_dim, hidden_dim, F.relu)])
        self.classify = nn.Linear(hidden_dim, n_classes)

    def forward(self, g):
        h = g.in_degrees().view(-1, 1).float().to(self.classify.weight.device)  # <- fixed
        for conv in self.layers:
            h = conv(g, h)
        g.ndata["h"] = h
        hg = dgl.mean_nodes(g, "h")
        return self.classify(hg)


def collate(samples):
    graphs, labels = map(list, zip(*samples))
    return dgl.batch(graphs), torch.tensor(labels)


if __name__ == "__main__":
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    trainset = MiniGCDataset(320, 10, 20)
    data_loader = DataLoader(trainset, batch_size=32, shuffle=True, collate_fn=collate)
    model = Classifier(1, 256, trainset.num_classes).to(device)
    loss_func = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    model.train()
    for epoch in range(80):
        epoch_loss = 0
        for it, (bg, label) in enumerate(data_loader):
            bg = bg.to(device)
            label = label.to(device)
            prediction = model(bg)
            loss = loss_func(prediction, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.detach()
        print("Epoch {}, loss {:.4f}".format(epoch, (epoch_loss / (it + 1)).item()))
