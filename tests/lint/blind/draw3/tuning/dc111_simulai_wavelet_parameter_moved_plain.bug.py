# devcheck bug corpus: DC111
# From: https://github.com/IBM/simulai/pull/182
# The trainable Wavelet activation made its two weights as nn.Parameter and
# then moved them with .to(device). .to() of a Parameter returns a plain
# tensor, so the weights were neither registered on the module (not in
# parameters(), never trained, not moved with the network) nor, when the
# network was later moved, on its device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class TrainableActivation(nn.Module):
    def setup(self, device=None):
        pass


class Wavelet(TrainableActivation):
    name = "wavelet"

    def __init__(self, device="cpu"):
        super().__init__()
        self.device = device
        self.w1 = nn.Parameter(torch.ones(1), requires_grad=True).to(self.device)  # <- bug
        self.w2 = nn.Parameter(torch.ones(1), requires_grad=True).to(self.device)  # <- bug

    def setup(self, device=None):
        self.w1 = nn.Parameter(torch.ones(1), requires_grad=True).to(device)  # <- bug
        self.w2 = nn.Parameter(torch.ones(1), requires_grad=True).to(device)  # <- bug

    def forward(self, x):
        return self.w1 * torch.sin(x) + self.w2 * torch.cos(x)


class DenseNetwork(nn.Module):
    def __init__(self, layers, activation="wavelet", device="cpu"):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(layers[:-1], layers[1:]))
        self.activations = nn.ModuleList(Wavelet(device=device) for _ in layers[1:-1])
        self.device = device

    def forward(self, x):
        for layer, act in zip(self.layers[:-1], self.activations):
            x = act(layer(x))
        return self.layers[-1](x)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = DenseNetwork([2, 50, 50, 1], device=device).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.rand(128, 2, device=device)
    loss = (net(x) - torch.sin(x.sum(-1, keepdim=True))).pow(2).mean()
    loss.backward()
    opt.step()
