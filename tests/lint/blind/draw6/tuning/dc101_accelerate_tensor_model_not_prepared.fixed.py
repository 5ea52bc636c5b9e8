# devcheck bug corpus: DC101
# From: https://github.com/huggingface/accelerate/pull/3157
# Fixed: the weight is an nn.Parameter of a small nn.Module, which
# accelerator.prepare() moves to the device beside the prepared batches.
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


class OneWeight(torch.nn.Module):  # <- fixed
    def __init__(self):  # <- fixed
        super().__init__()  # <- fixed
        self.weight = torch.nn.Parameter(torch.zeros((1, 1)))  # <- fixed

    def forward(self, inp):  # <- fixed
        return inp @ self.weight  # <- fixed


model = OneWeight()  # <- fixed
model_ref = copy.deepcopy(model)
mse = torch.nn.MSELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.02)

accelerator = Accelerator(gradient_accumulation_steps=accum_steps)
model, opt, loader = accelerator.prepare(model, opt, loader)
opt_ref = torch.optim.SGD(model_ref.parameters(), lr=0.02)

print(f"start: {model.weight.mean().item():.5f} / {model_ref.weight.mean().item():.5f}")
for step, (inp, tgt) in enumerate(loader):
    with accelerator.accumulate(model):
        inp = inp.view(-1, 1)
        tgt = tgt.view(-1, 1)
        pred = model(inp)  # <- fixed
        loss = mse(pred, tgt)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()

ref_loss = mse(xs.view(-1, 1) @ model_ref.weight, ys.view(-1, 1))
opt_ref.zero_grad()
ref_loss.backward()
opt_ref.step()
print(f"accumulated: {model.weight.mean().item():.5f}")
print(f"single batch: {model_ref.weight.mean().item():.5f}")
