# devcheck bug corpus: DC110
# From: https://github.com/pyro-ppl/pyro/pull/1043
# From: https://github.com/pyro-ppl/pyro/commit/01dd5cf6388bdd121ce13078bd0d88ca26a42d9a
# The fix drops the global CUDA default tensor type and makes the priors
# from the batch itself (xs.new_zeros / xs.new_ones), so they follow the data
# to whichever device it is on and the sampler stays on the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import pyro
import pyro.distributions as dist
import torch
import torch.nn as nn
from pyro.infer import SVI, Trace_ELBO
from pyro.optim import Adam
from torch.utils.data import DataLoader, TensorDataset


class SSVAE(nn.Module):
    def __init__(self, output_size=10, input_size=784, z_dim=50, hidden=500, use_cuda=False):
        super().__init__()
        self.output_size = output_size
        self.z_dim = z_dim
        self.encoder_y = nn.Sequential(nn.Linear(input_size, hidden), nn.Softplus(), nn.Linear(hidden, output_size), nn.Softmax(dim=-1))
        self.encoder_z = nn.Sequential(nn.Linear(input_size + output_size, hidden), nn.Softplus(), nn.Linear(hidden, 2 * z_dim))
        self.decoder = nn.Sequential(nn.Linear(z_dim + output_size, hidden), nn.Softplus(), nn.Linear(hidden, input_size), nn.Sigmoid())
        if use_cuda:
            self.cuda()

    def model(self, xs, ys=None):
        pyro.module("ss_vae", self)
        batch_size = xs.size(0)
        with pyro.plate("data", batch_size):
            prior_loc = xs.new_zeros([batch_size, self.z_dim])  # <- fixed
            prior_scale = xs.new_ones([batch_size, self.z_dim])  # <- fixed
            zs = pyro.sample("z", dist.Normal(prior_loc, prior_scale).to_event(1))
            alpha_prior = xs.new_ones([batch_size, self.output_size]) / (1.0 * self.output_size)  # <- fixed
            ys = pyro.sample("y", dist.OneHotCategorical(alpha_prior), obs=ys)
            loc = self.decoder(torch.cat([zs, ys], dim=-1))
            pyro.sample("x", dist.Bernoulli(loc).to_event(1), obs=xs)

    def guide(self, xs, ys=None):
        with pyro.plate("data", xs.size(0)):
            if ys is None:
                ys = pyro.sample("y", dist.OneHotCategorical(self.encoder_y(xs)))
            stats = self.encoder_z(torch.cat([xs, ys], dim=-1))
            pyro.sample("z", dist.Normal(stats[:, :self.z_dim], stats[:, self.z_dim:].exp()).to_event(1))


def main(args):
    xs = torch.rand(1000, 784).round().cpu()
    ys = torch.eye(10)[torch.randint(0, 10, (1000,))].cpu()
    loader = DataLoader(TensorDataset(xs, ys), batch_size=100, shuffle=True)
    ss_vae = SSVAE(use_cuda=args.cuda)
    svi = SVI(ss_vae.model, ss_vae.guide, Adam({"lr": 3e-4}), loss=Trace_ELBO())
    for epoch in range(args.num_epochs):
        for x, y in loader:
            if args.cuda:
                x, y = x.cuda(), y.cuda()
            svi.step(x, y)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--num-epochs", type=int, default=2)
    main(parser.parse_args())
