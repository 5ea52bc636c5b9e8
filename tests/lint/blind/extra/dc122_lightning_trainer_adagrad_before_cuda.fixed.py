# devcheck bug corpus: DC122
# From: https://github.com/Lightning-AI/pytorch-lightning/pull/554
# Fixed: the trainer moves the model to the GPU before it asks for the
# optimizers.
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
    model.cuda(root_gpu)  # <- fixed
    optimizer = model.configure_optimizers()  # <- fixed
    for x, y in loader:
        x, y = x.cuda(root_gpu), y.cuda(root_gpu)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    single_gpu_train(LitModel(), [])
