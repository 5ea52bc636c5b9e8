# devcheck bug corpus: DC120
# From: https://github.com/INK-USC/RE-Net/issues/30
# From: https://github.com/INK-USC/RE-Net/commit/65da84b661d6ec12fcb597e81c72baee5b5e6d30
# The per-timestamp graphs of the history are DGL graphs built on the host
# from NumPy arrays (and loaded from a pickle); the aggregator batches a
# subject's history graphs and writes the entity embeddings, which live on
# the GPU with the model, into the batched graph: host graph, device features.
# Written for devcheck's tests after the thread; not the project's code.
import pickle

import dgl
import numpy as np
import torch
import torch.nn as nn


def get_big_graph(triples, num_rels):
    src, rel, dst = triples.transpose()
    uniq_v, edges = np.unique((src, dst), return_inverse=True)
    src, dst = np.reshape(edges, (2, -1))
    g = dgl.graph((np.concatenate((src, dst)), np.concatenate((dst, src))), num_nodes=len(uniq_v))
    g.ndata["id"] = torch.from_numpy(uniq_v).long().view(-1, 1)
    g.edata["type"] = torch.from_numpy(np.concatenate((rel, rel + num_rels))).long()
    return g


def get_s_r_embed_rgcn(history_times, ent_embeds, graph_dict):
    g_list = [graph_dict[t] for t in history_times]
    batched_graph = dgl.batch(g_list)  # <- bug
    batched_graph.ndata["h"] = ent_embeds[batched_graph.ndata["id"]].view(-1, ent_embeds.shape[1])
    return batched_graph


class RGCNAggregator(nn.Module):
    def __init__(self, h_dim, num_rels):
        super().__init__()
        self.rel_weight = nn.Embedding(2 * num_rels, h_dim)
        self.self_loop = nn.Linear(h_dim, h_dim)

    def forward(self, g):
        g.edata["m"] = self.rel_weight(g.edata["type"])
        g.update_all(dgl.function.u_mul_e("h", "m", "msg"), dgl.function.mean("msg", "h"))
        return torch.relu(g.ndata["h"] + self.self_loop(g.ndata["h"]))


class RENet(nn.Module):
    def __init__(self, num_ents, num_rels, h_dim=200):
        super().__init__()
        self.ent_embeds = nn.Parameter(torch.randn(num_ents, h_dim))
        self.aggregator = RGCNAggregator(h_dim, num_rels)
        self.encoder = nn.GRU(h_dim, h_dim, batch_first=True)
        self.linear = nn.Linear(2 * h_dim, num_ents)
        self.graph_dict = {}

    def forward(self, s, history_times):
        g = get_s_r_embed_rgcn(history_times, self.ent_embeds, self.graph_dict)
        g.ndata["h"] = self.aggregator(g)
        seq = dgl.readout_nodes(g, "h", op="mean").unsqueeze(0)
        _, s_h = self.encoder(seq)
        return self.linear(torch.cat((self.ent_embeds[s], s_h[-1, 0]), dim=-1))


def train(args):
    use_cuda = args.gpu >= 0 and torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(args.gpu)
    model = RENet(args.num_ents, args.num_rels)
    if use_cuda:
        model.cuda()
    with open(args.graph_file, "rb") as f:
        model.graph_dict = pickle.load(f)
    model.graph_dict[args.latest_time] = get_big_graph(args.latest_triples, args.num_rels)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for s, o, times in args.batches:
        logits = model(s, times)
        target = torch.tensor(o, device=logits.device)
        loss = nn.functional.cross_entropy(logits.unsqueeze(0), target.view(1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
