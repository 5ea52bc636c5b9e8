# devcheck bug corpus: DC113
# From: https://github.com/madminer-tool/madminer/pull/212
# Fixed: when running on the GPU the estimated log-likelihoods and scores
# are copied back to the CPU before they are turned into NumPy arrays.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from torch import tensor
from torch.autograd import grad


class ConditionalAffineFlow(nn.Module):
    def __init__(self, n_conditionals, n_inputs):
        super().__init__()
        self.n_inputs = n_inputs
        self.net = nn.Sequential(nn.Linear(n_conditionals, 64), nn.Tanh(), nn.Linear(64, 2 * n_inputs))

    def forward(self, theta, x):
        shift, log_scale = self.net(theta).chunk(2, dim=1)
        return (x - shift) * torch.exp(-log_scale), -torch.sum(log_scale, dim=1)

    def log_likelihood(self, theta, x):
        u, logdet = self.forward(theta, x)
        constant = float(-0.5 * self.n_inputs * np.log(2.0 * np.pi))
        return u, constant - 0.5 * torch.sum(u ** 2, dim=1) + logdet

    def log_likelihood_and_score(self, theta, x):
        if not theta.requires_grad:
            theta.requires_grad = True
        u, log_p = self.log_likelihood(theta, x)
        score = grad(log_p, theta, grad_outputs=torch.ones_like(log_p.data), create_graph=True)[0]
        return u, log_p, score


def evaluate_flow_model(model, theta0s, xs, evaluate_score=False, run_on_gpu=True, double_precision=False):
    run_on_gpu = run_on_gpu and torch.cuda.is_available()
    device = torch.device("cuda" if run_on_gpu else "cpu")
    dtype = torch.double if double_precision else torch.float
    n_thetas = len(theta0s)
    theta0s = torch.stack([tensor(theta0s[i % n_thetas], requires_grad=True) for i in range(len(xs))])
    xs = torch.stack([tensor(x) for x in xs])
    model = model.to(device, dtype)
    theta0s = theta0s.to(device, dtype)
    xs = xs.to(device, dtype)
    if evaluate_score:
        model.eval()
        _, log_p_hat, t_hat = model.log_likelihood_and_score(theta0s, xs)
        if run_on_gpu:  # <- fixed
            log_p_hat = log_p_hat.cpu()  # <- fixed
            t_hat = t_hat.cpu()  # <- fixed
        log_p_hat = log_p_hat.detach().numpy().flatten()  # <- fixed
        t_hat = t_hat.detach().numpy().flatten()  # <- fixed
    else:
        with torch.no_grad():
            model.eval()
            _, log_p_hat = model.log_likelihood(theta0s, xs)
            if run_on_gpu:  # <- fixed
                log_p_hat = log_p_hat.cpu()  # <- fixed
            log_p_hat = log_p_hat.detach().numpy().flatten()  # <- fixed
            t_hat = None
    return log_p_hat, t_hat
