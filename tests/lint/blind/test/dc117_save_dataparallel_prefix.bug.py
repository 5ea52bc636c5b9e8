# devcheck bug corpus: DC117
# From: https://github.com/pytorch/pytorch/issues/9176
# A model trained under nn.DataParallel was saved with model.state_dict(): every
# key carries the "module." prefix, and loading the weights into the plain model
# later fails. The fix saved model.module.state_dict().
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def train_and_save(build, loader, path):
    model = nn.DataParallel(build()).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save(model.state_dict(), path)  # <- bug
