# devcheck bug corpus: DC113
# From: https://github.com/madminer-tool/madminer/pull/210
# Evaluating a trained ratio estimator on GPUs: the model's output was turned
# into NumPy with .detach().numpy(): "can't convert CUDA tensor to numpy". The
# fix copied the outputs back to the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def evaluate_ratio_model(model, xs, run_on_gpu=True):
    device = torch.device("cuda" if run_on_gpu and torch.cuda.is_available() else "cpu")
    model = model.to(device)
    model.eval()
    xs = torch.from_numpy(xs.astype(np.float64)).to(device)
    s_hat, log_r_hat = model(xs)
    return s_hat.detach().numpy(), log_r_hat.detach().numpy()  # <- bug
