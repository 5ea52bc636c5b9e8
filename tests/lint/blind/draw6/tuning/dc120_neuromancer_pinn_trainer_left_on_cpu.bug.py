# devcheck bug corpus: DC120
# From: https://github.com/pnnl/neuromancer/issues/177
# From: https://github.com/pnnl/neuromancer/commit/8e41beaa7095117c78d1bbd2096d2458cdd9bfca
# The diffusion-equation PINN tutorial moved its problem (the network) to the
# GPU with problem.to(device) but built the Trainer without device=, so the
# trainer fed it the collocation batches on its default device, the CPU:
# trainer.train() fails in the first linear layer (cpu and cuda:0). After
# training, the test grid on the CPU went into the GPU network as well.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from neuromancer.constraint import variable
from neuromancer.dataset import DictDataset
from neuromancer.loss import PenaltyLoss
from neuromancer.modules import blocks
from neuromancer.problem import Problem
from neuromancer.system import Node
from neuromancer.trainer import Trainer

torch.manual_seed(1234)
np.random.seed(1234)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

x = torch.linspace(-1, 1, 200).view(-1, 1)
t = torch.linspace(0, 1, 100).view(-1, 1)
X, T = torch.meshgrid(x.squeeze(1), t.squeeze(1), indexing="xy")
y_real = torch.exp(-T) * torch.sin(np.pi * X)
X_test, T_test, Y_test = X.reshape(-1, 1), T.reshape(-1, 1), y_real.reshape(-1, 1)

Nf = 1000
X_train_Nf = (2 * torch.rand(Nf, 1) - 1).requires_grad_(True)
T_train_Nf = torch.rand(Nf, 1).requires_grad_(True)
train_data = DictDataset({"x": X_train_Nf, "t": T_train_Nf}, name="train")
test_data = DictDataset({"x": X_test, "t": T_test, "y": Y_test}, name="test")
train_loader = torch.utils.data.DataLoader(train_data, batch_size=Nf, collate_fn=train_data.collate_fn)

net = blocks.MLP(insize=2, outsize=1, hsizes=[32, 32], nonlin=nn.Tanh)
pde_net = Node(net, ["x", "t"], ["y_hat"], name="net")

y_hat, tv, xv = variable("y_hat"), variable("t"), variable("x")
d2y_dx2 = y_hat.grad(xv).grad(xv)
f_pinn = y_hat.grad(tv) - d2y_dx2 + torch.exp(-tv) * (torch.sin(torch.pi * xv) - torch.pi ** 2 * torch.sin(torch.pi * xv))

scaling = 100.0
ell_f = scaling * (f_pinn == 0.0) ^ 2  # <- bug
con_1 = scaling * (y_hat <= 1.0) ^ 2
con_2 = scaling * (y_hat >= -1.0) ^ 2

problem = Problem(nodes=[pde_net], loss=PenaltyLoss(objectives=[ell_f], constraints=[con_1, con_2]),
                  grad_inference=True)
optimizer = torch.optim.Adam(problem.parameters(), lr=0.001)
trainer = Trainer(  # <- bug
    problem.to(device),
    train_loader,
    optimizer=optimizer,
    epochs=5000,
    train_metric="train_loss",
    dev_metric="train_loss",
    eval_metric="train_loss",
    warmup=5000,
)
best_model = trainer.train()
problem.load_state_dict(best_model)

PINN = problem.nodes[0]  # <- bug
y_pinn = PINN(test_data.datadict)["y_hat"].reshape(100, 200).detach().cpu()
print(float((y_pinn - y_real).abs().max()))
