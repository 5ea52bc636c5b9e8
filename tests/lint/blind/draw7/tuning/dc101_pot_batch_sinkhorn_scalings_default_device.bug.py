# devcheck bug corpus: DC101
# From: https://github.com/PythonOT/POT/issues/783
# From: https://github.com/PythonOT/POT/pull/851
# POT's batched Sinkhorn (reached by ot.solve_sample_batch) makes its default
# uniform marginals and its scaling vectors f and g with the backend's
# nx.ones(...) and nothing telling it where: with the torch backend they land
# on the default (CPU) device while the kernel K built from CUDA samples is on
# the GPU, so the first iteration mixes the two.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from ot.backend import get_backend


def norm_batch(u, nx, p=2):
    return nx.sum(u**p, axis=1) ** (1 / p)


def bregman_projection_batch(K, a=None, b=None, nx=None, max_iter=10000, tol=1e-5):
    if nx is None:
        nx = get_backend(a, b, K)
    B, n, m = K.shape
    if a is None:
        a = nx.ones((B, n)) / n  # <- bug
    if b is None:
        b = nx.ones((B, m)) / m  # <- bug
    K = nx.detach(K)
    f = nx.ones((B, n))  # <- bug
    g = nx.ones((B, m))  # <- bug
    for n_iters in range(max_iter):
        f = a / nx.sum(K * g[:, None, :], axis=2)
        g = b / nx.sum(K * f[:, :, None], axis=1)
        if n_iters % 10 == 0:
            T = K * f[:, :, None] * g[:, None, :]
            if nx.max(norm_batch(nx.sum(T, axis=2) - a, nx)) < tol:
                break
    T = K * f[:, :, None] * g[:, None, :]
    return {"T": T, "n_iters": n_iters, "potentials": (f, g)}


def solve_sample_batch(X_a, X_b, reg=1.0, max_iter=1000, tol=1e-5):
    nx = get_backend(X_a, X_b)
    M = nx.sum((X_a[:, :, None, :] - X_b[:, None, :, :]) ** 2, axis=-1)
    K = nx.exp(-M / reg)
    res = bregman_projection_batch(K, nx=nx, max_iter=max_iter, tol=tol)
    return res["T"], nx.sum(res["T"] * M, axis=(1, 2))


if __name__ == "__main__":
    x = torch.zeros((24, 100, 1))
    y = torch.zeros((24, 100, 1))
    plans, costs = solve_sample_batch(x.cuda(), y.cuda(), reg=1)
    print(plans.shape, costs.shape)
