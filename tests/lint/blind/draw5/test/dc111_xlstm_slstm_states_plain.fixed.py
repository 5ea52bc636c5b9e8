# devcheck bug corpus: DC111
# From: https://github.com/styalai/xLSTM-pytorch/issues/2
# From: https://github.com/styalai/xLSTM-pytorch/pull/3
# Fixed (the reporter's PR): the recurrent states are made as buffers
# (nn.Buffer) in __init__, so they move with the block; init_states is gone.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class sLSTMblock(nn.Module):
    def __init__(self, x_example, dropout=0.2):
        super().__init__()
        self.input_size = x_example.shape[2]
        self.ln = nn.LayerNorm(self.input_size)
        self.drop = nn.Dropout(dropout)
        self.i_gate = nn.Linear(self.input_size, self.input_size)
        self.f_gate = nn.Linear(self.input_size, self.input_size)
        self.o_gate = nn.Linear(self.input_size, self.input_size)
        self.z_gate = nn.Linear(self.input_size, self.input_size)
        self.ri_gate = nn.Linear(self.input_size, self.input_size, bias=False)
        self.rf_gate = nn.Linear(self.input_size, self.input_size, bias=False)
        self.ln_c = nn.LayerNorm(self.input_size)
        self.ln_n = nn.LayerNorm(self.input_size)
        self.proj = nn.Linear(self.input_size, self.input_size)
        self.nt_1 = nn.Buffer(data=torch.zeros(1, 1, self.input_size))  # <- fixed
        self.ct_1 = nn.Buffer(data=torch.zeros(1, 1, self.input_size))  # <- fixed
        self.ht_1 = nn.Buffer(data=torch.zeros(1, 1, self.input_size))  # <- fixed
        self.mt_1 = nn.Buffer(data=torch.zeros(1, 1, self.input_size))  # <- fixed

    def forward(self, x):
        x = self.drop(self.ln(x))
        ht_1 = self.ht_1
        i = torch.exp(self.i_gate(x) + self.ri_gate(ht_1))
        f = torch.exp(self.f_gate(x) + self.rf_gate(ht_1))
        m = torch.max(torch.log(f) + self.mt_1, torch.log(i))
        i = torch.exp(torch.log(i) - m)
        f = torch.exp(torch.log(f) + self.mt_1 - m)
        self.mt_1 = m.mean([0, 1], keepdim=True).detach()
        o = torch.sigmoid(self.o_gate(x))
        z = torch.tanh(self.z_gate(x))
        ct = torch.mean(self.ln_c(f * self.ct_1 + i * z), [0, 1], keepdim=True)
        nt = torch.mean(self.ln_n(f * self.nt_1 + i), [0, 1], keepdim=True)
        self.ct_1, self.nt_1 = ct.detach(), nt.detach()
        ht = o * (ct / nt)
        self.ht_1 = ht.mean([0, 1], keepdim=True).detach()
        return self.proj(F.gelu(ht))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x_example = torch.zeros(4, 8, 16)
    block = sLSTMblock(x_example).to(device)
    optimizer = torch.optim.Adam(block.parameters(), lr=1e-3)
    for _ in range(3):
        x = torch.randn(4, 8, 16, device=device)
        loss = block(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
