# devcheck bug corpus: DC101
# From: https://github.com/kubeflow/katib/pull/2273
# Katib's DARTS trial: the architect scales its virtual weight step and the
# alpha gradients by the learning rate wrapped as torch.FloatTensor(xi) (xi is
# the scheduler's [lr] list), a one-element CPU tensor, while the weights,
# gradients and alphas are on the GPU the trial runs on.
# Written for devcheck's tests after the thread; not the project's code.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class SearchNetwork(nn.Module):
    def __init__(self, n_ops=4, c=16, n_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.ops = nn.ModuleList([nn.Conv2d(c, c, 3, padding=1) for _ in range(n_ops)])
        self.alpha = nn.Parameter(1e-3 * torch.randn(n_ops))
        self.head = nn.Linear(c, n_classes)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        h = self.stem(x)
        w = F.softmax(self.alpha, dim=-1)
        h = sum(wi * op(h) for wi, op in zip(w, self.ops))
        return self.head(h.mean((2, 3)))

    def loss(self, x, y):
        return self.criterion(self(x), y)

    def getWeights(self):
        return [p for n, p in self.named_parameters() if n != "alpha"]

    def getAlphas(self):
        return [self.alpha]


class Architect:
    def __init__(self, model, w_momentum, w_weight_decay):
        self.model = model
        self.v_model = copy.deepcopy(model)
        self.w_momentum = w_momentum
        self.w_weight_decay = w_weight_decay

    def virtual_step(self, train_x, train_y, xi, w_optim):
        loss = self.model.loss(train_x, train_y)
        gradients = torch.autograd.grad(loss, self.model.getWeights())
        with torch.no_grad():
            for w, vw, g in zip(self.model.getWeights(), self.v_model.getWeights(), gradients):
                m = w_optim.state[w].get("momentum_buffer", 0.0) * self.w_momentum
                vw.copy_(w - torch.FloatTensor(xi) * (m + g + self.w_weight_decay * w))  # <- bug
            for a, va in zip(self.model.getAlphas(), self.v_model.getAlphas()):
                va.copy_(a)

    def compute_hessian(self, dws, train_x, train_y):
        eps = 0.01 / torch.cat([dw.view(-1) for dw in dws]).norm()
        with torch.no_grad():
            for p, dw in zip(self.model.getWeights(), dws):
                p += eps * dw
        dalpha_pos = torch.autograd.grad(self.model.loss(train_x, train_y), self.model.getAlphas())
        with torch.no_grad():
            for p, dw in zip(self.model.getWeights(), dws):
                p -= 2.0 * eps * dw
        dalpha_neg = torch.autograd.grad(self.model.loss(train_x, train_y), self.model.getAlphas())
        with torch.no_grad():
            for p, dw in zip(self.model.getWeights(), dws):
                p += eps * dw
        return [(p - n) / (2.0 * eps) for p, n in zip(dalpha_pos, dalpha_neg)]

    def unrolled_backward(self, train_x, train_y, valid_x, valid_y, xi, w_optim):
        self.virtual_step(train_x, train_y, xi, w_optim)
        loss = self.v_model.loss(valid_x, valid_y)
        v_alphas = tuple(self.v_model.getAlphas())
        v_weights = tuple(self.v_model.getWeights())
        v_grads = torch.autograd.grad(loss, v_alphas + v_weights)
        dalpha, dws = v_grads[: len(v_alphas)], v_grads[len(v_alphas):]
        hessian = self.compute_hessian(dws, train_x, train_y)
        with torch.no_grad():
            for alpha, da, h in zip(self.model.getAlphas(), dalpha, hessian):
                alpha.grad = da - torch.FloatTensor(xi) * h  # <- bug


def main():
    if torch.cuda.device_count() > 0:
        device = torch.device("cuda")
        torch.cuda.set_device(0)
    else:
        device = torch.device("cpu")
    model = SearchNetwork().to(device)
    w_optim = torch.optim.SGD(model.getWeights(), 0.025, momentum=0.9, weight_decay=3e-4)
    alpha_optim = torch.optim.Adam(model.getAlphas(), 3e-4, betas=(0.5, 0.999))
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(w_optim, 10, eta_min=0.001)
    architect = Architect(model, 0.9, 3e-4)
    for epoch in range(10):
        lr = lr_scheduler.get_last_lr()
        for _ in range(20):
            train_x, train_y = torch.randn(16, 3, 32, 32).to(device), torch.randint(0, 10, (16,)).to(device)
            valid_x, valid_y = torch.randn(16, 3, 32, 32).to(device), torch.randint(0, 10, (16,)).to(device)
            alpha_optim.zero_grad()
            architect.unrolled_backward(train_x, train_y, valid_x, valid_y, lr, w_optim)
            alpha_optim.step()
            w_optim.zero_grad()
            model.loss(train_x, train_y).backward()
            w_optim.step()
        lr_scheduler.step()


if __name__ == "__main__":
    main()
