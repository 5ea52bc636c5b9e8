# devcheck bug corpus: DC112
# From: https://github.com/devzhk/InverseBench/pull/9
# The black-hole imaging forward operator takes a device argument and puts
# its forward matrices and noise levels there with .to(device), but the
# closure-phase and closure-amplitude index tensors built in
# get_index_matrix() were moved with .cuda(): with another device (the CPU)
# the operator failed. The pull request keeps the device on the operator and
# moves the index tensors with .to(self.device).
# Written for devcheck's tests after the thread; not the project's code.
from abc import ABC

import numpy as np
import pandas as pd
import torch


class BaseOperator(ABC):
    def __init__(self, sigma_noise=0.0, unnorm_shift=0.0, unnorm_scale=1.0, device="cuda"):
        self.sigma_noise = sigma_noise
        self.unnorm_shift = unnorm_shift
        self.unnorm_scale = unnorm_scale
        self.device = device


class BlackHoleImaging(BaseOperator):
    def __init__(self, obs, A_vis, A_cp, sigma, imsize=64, sigma_noise=0.0, device="cuda"):
        super().__init__(sigma_noise, 1.0, 0.5, device)
        self.H = self.W = imsize
        self.get_index_matrix(obs)
        self.sigma = torch.tensor(sigma).to(device)
        self.A_vis = torch.from_numpy(A_vis).unsqueeze(0).unsqueeze(0).cfloat().to(device)
        self.A_cp = torch.from_numpy(A_cp).unsqueeze(1).unsqueeze(1).cfloat().to(device)

    def get_index_matrix(self, obs):
        df = pd.DataFrame(obs.data)
        map_fn = {}
        for i, (time, t1, t2) in enumerate(zip(df["time"], df["t1"], df["t2"])):
            map_fn[(time, t1, t2)] = i
            map_fn[(time, t2, t1)] = i
        bispec_df = pd.DataFrame(obs.bispectra(count="min"))
        cp_index = []
        for time, t1, t2, t3 in zip(bispec_df["time"], bispec_df["t1"], bispec_df["t2"], bispec_df["t3"]):
            cp_index.append([map_fn[(time, t1, t2)], map_fn[(time, t2, t3)], map_fn[(time, t3, t1)]])
        self.cp_index = torch.tensor(cp_index).long().cuda()  # <- bug

    def forward_bispectra(self, x):
        xvec = x.to(self.A_cp).reshape(-1, 1, 1, self.H * self.W)
        return [(self.A_cp[k] * xvec).sum(-1, keepdims=True) for k in range(3)]

    def forward_cp(self, x):
        i1, i2, i3 = self.forward_bispectra(x)
        cphase = torch.angle(i1 * i2 * i3)
        v = [self.sigma[self.cp_index[:, k]][None, None, :, None] for k in range(3)]
        sigmacp = (v[0] ** 2 / i1.abs() ** 2 + v[1] ** 2 / i2.abs() ** 2 + v[2] ** 2 / i3.abs() ** 2).sqrt()
        return cphase, sigmacp


def run(obs, A_vis, A_cp, sigma):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    op = BlackHoleImaging(obs, A_vis, A_cp, sigma, device=device)
    return op.forward_cp(torch.rand(1, 1, 64, 64, device=device))
