# devcheck bug corpus: DC120
# From: https://github.com/pnnl/neuromancer/issues/179
# From: https://github.com/pnnl/neuromancer/pull/191
# The lid-driven cavity (Navier-Stokes, KAN) tutorial put its collocation and
# boundary points on the GPU when one is there, but wrapped the KAN network
# in a Node that was never moved: the first forward pass,
# pde_net(train_data.datadict), multiplies CUDA inputs with CPU weights.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from neuromancer.dataset import DictDataset
from neuromancer.modules import blocks
from neuromancer.system import Node

torch.set_default_dtype(torch.float)
torch.manual_seed(1234)
np.random.seed(1234)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

n_side = 50
s = torch.linspace(0, 1, n_side)
zeros, ones = torch.zeros(n_side), torch.ones(n_side)
X_train_bc = torch.cat([zeros, ones, s, s]).view(-1, 1).to(device)
Y_train_bc = torch.cat([s, s, ones, zeros]).view(-1, 1).to(device)

N_cp = 200
X_train_cp = torch.FloatTensor(N_cp, 1).uniform_(0.0, 1.0).to(device)
Y_train_cp = torch.FloatTensor(N_cp, 1).uniform_(0.0, 1.0).to(device)
X_train = torch.vstack((X_train_cp, X_train_bc)).float().to(device)
Y_train = torch.vstack((Y_train_cp, Y_train_bc)).float().to(device)
X_train.requires_grad = True
Y_train.requires_grad = True

train_data = DictDataset({"x": X_train.to(device), "y": Y_train.to(device)}, name="train")
train_loader = torch.utils.data.DataLoader(train_data, batch_size=X_train.shape[0],
                                           collate_fn=train_data.collate_fn, shuffle=False)

net = blocks.KANBlock(insize=2, outsize=3, num_layers=3, hidden_size=32)
pde_net = Node(net, ["x", "y"], ["U"], name="net")  # <- bug

net_out = pde_net(train_data.datadict)
print(net_out["U"].shape)
vx, vy, p = net_out["U"][:, 0:1], net_out["U"][:, 1:2], net_out["U"][:, 2:3]
dvx_dx = torch.autograd.grad(vx.sum(), X_train, create_graph=True)[0]
print(dvx_dx.shape, vy.shape, p.shape)
