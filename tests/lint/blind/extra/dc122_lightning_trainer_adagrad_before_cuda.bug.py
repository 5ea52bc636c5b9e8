# devcheck bug corpus: DC122
# From: https://github.com/Lightning-AI/pytorch-lightning/pull/554
# A trainer asked the model for its optimizers (`configure_optimizers()`)
# before it moved the model to the GPU. With Adagrad, whose accumulators are
# made when the optimizer is constructed, the state was made on the CPU and
# `Adagrad.step()` failed on the GPU gradients (Adam, which makes its state
# at the first step, worked). The pull request moves the model to CUDA
# before the optimizers are made.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class LitModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(28 * 28, 10)

    def forward(self, x):
        return self.layer(x.view(x.size(0), -1))

    def configure_optimizers(self):
        return torch.optim.Adagrad(self.parameters(), lr=0.01)


def single_gpu_train(model, loader, root_gpu=0):
    optimizer = model.configure_optimizers()  # <- bug
    model.cuda(root_gpu)  # <- bug
    for x, y in loader:
        x, y = x.cuda(root_gpu), y.cuda(root_gpu)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    single_gpu_train(LitModel(), [])
