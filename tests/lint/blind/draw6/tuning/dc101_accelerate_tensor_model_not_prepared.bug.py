# devcheck bug corpus: DC101
# From: https://github.com/huggingface/accelerate/pull/3157
# The gradient-accumulation example of the docs used a bare tensor as its
# "model". accelerator.prepare() puts modules and the prepared loader's
# batches on the device but hands a plain tensor back where it was, so on a
# GPU the batch (cuda:0) is multiplied with the CPU weight tensor.
# Written for devcheck's tests after the thread; not the project's code.
import copy

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset

set_seed(0)

xs = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
ys = 2 * xs
accum_steps = 4
batch_size = len(xs) // accum_steps

loader = DataLoader(TensorDataset(xs, ys), batch_size=batch_size)

weight = torch.zeros((1, 1), requires_grad=True)  # <- bug
weight_ref = copy.deepcopy(weight)
mse = torch.nn.MSELoss()
opt = torch.optim.SGD([weight], lr=0.02)

accelerator = Accelerator(gradient_accumulation_steps=accum_steps)
weight, opt, loader = accelerator.prepare(weight, opt, loader)
opt_ref = torch.optim.SGD([weight_ref], lr=0.02)

print(f"start: {weight.mean().item():.5f} / {weight_ref.mean().item():.5f}")
for step, (inp, tgt) in enumerate(loader):
    with accelerator.accumulate(weight):
        inp = inp.view(-1, 1)
        tgt = tgt.view(-1, 1)
        pred = inp @ weight
        loss = mse(pred, tgt)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()

ref_loss = mse(xs.view(-1, 1) @ weight_ref, ys.view(-1, 1))
opt_ref.zero_grad()
ref_loss.backward()
opt_ref.step()
print(f"accumulated: {weight.mean().item():.5f}")
print(f"single batch: {weight_ref.mean().item():.5f}")
