# devcheck bug corpus: DC110
# From: https://github.com/amirhajibabaei/AutoForce/pull/33
# The package's __init__ makes float64 the default with
# torch.set_default_tensor_type(torch.DoubleTensor), deprecated as of torch
# 2.1 (a UserWarning at every import), right before the
# torch.set_default_dtype(torch.double) call that already does the job.
# Written for devcheck's tests after the thread; not the project's code.
__version__ = "v2021.09"

import numpy as np

if not hasattr(np, "float"):
    np.float = np.float64

import torch

torch.set_default_tensor_type(torch.DoubleTensor)  # <- bug
torch.set_default_dtype(torch.double)
if int(torch.__version__.split(".")[1]) > 7:
    torch.cholesky = torch.linalg.cholesky
    torch.qr = torch.linalg.qr


def squared_exponential(x1, x2, lengthscale=1.0, variance=1.0):
    d2 = (x1[:, None, :] - x2[None, :, :]).pow(2).sum(-1)
    return variance * torch.exp(-0.5 * d2 / lengthscale ** 2)


def gp_predict(x_train, y_train, x_test, noise=1e-6):
    k = squared_exponential(x_train, x_train) + noise * torch.eye(x_train.shape[0])
    chol = torch.cholesky(k)
    alpha = torch.cholesky_solve(y_train.unsqueeze(-1), chol)
    return (squared_exponential(x_test, x_train) @ alpha).squeeze(-1)
