# devcheck bug corpus: DC114
# From: https://github.com/dmlc/dgl/issues/5302
# DGL's examples accumulate total_loss += loss.item() in every step, which
# synchronises the CPU with the GPU and keeps the loader from overlapping; the
# issue proposes total_loss += loss.detach().
# Written for devcheck's tests after the thread; not the project's code.
import torch


def train(model, dataloader, opt, loss_fn, device):
    model.train()
    total_loss = 0
    for input_nodes, output_nodes, blocks in dataloader:
        blocks = [b.to(device) for b in blocks]
        x = blocks[0].srcdata["feat"]
        y = blocks[-1].dstdata["label"]
        y_hat = model(blocks, x)
        loss = loss_fn(y_hat, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total_loss += loss.detach()  # <- fixed
    return float(total_loss)
