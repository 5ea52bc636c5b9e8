# devcheck bug corpus: DC101
# From: https://github.com/lucidrains/slot-attention/issues/7
# From: https://github.com/lucidrains/slot-attention/commit/4224f9d3100469a99d73f0ef02a545cb39fbb8fb
# The fix takes the inputs' device in forward and makes the slots' noise
# there (torch.randn(mu.shape, device=device)).
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torch.nn import init


class SlotAttention(nn.Module):
    def __init__(self, num_slots, dim, iters=3, eps=1e-8, hidden_dim=128):
        super().__init__()
        self.num_slots = num_slots
        self.iters = iters
        self.eps = eps
        self.scale = dim ** -0.5
        self.slots_mu = nn.Parameter(torch.randn(1, 1, dim))
        self.slots_logsigma = nn.Parameter(torch.zeros(1, 1, dim))
        init.xavier_uniform_(self.slots_logsigma)
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.gru = nn.GRUCell(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, max(dim, hidden_dim)), nn.ReLU(inplace=True), nn.Linear(max(dim, hidden_dim), dim))
        self.norm_input = nn.LayerNorm(dim)
        self.norm_slots = nn.LayerNorm(dim)
        self.norm_pre_ff = nn.LayerNorm(dim)

    def forward(self, inputs, num_slots=None):
        b, n, d = inputs.shape
        device = inputs.device  # <- fixed
        n_s = num_slots if num_slots is not None else self.num_slots
        mu = self.slots_mu.expand(b, n_s, -1)
        sigma = self.slots_logsigma.exp().expand(b, n_s, -1)
        slots = mu + sigma * torch.randn(mu.shape, device=device)  # <- fixed
        inputs = self.norm_input(inputs)
        k, v = self.to_k(inputs), self.to_v(inputs)
        for _ in range(self.iters):
            slots_prev = slots
            q = self.to_q(self.norm_slots(slots))
            attn = torch.einsum("bid,bjd->bij", q, k).mul(self.scale).softmax(dim=1) + self.eps
            attn = attn / attn.sum(dim=-1, keepdim=True)
            updates = torch.einsum("bjd,bij->bid", v, attn)
            slots = self.gru(updates.reshape(-1, d), slots_prev.reshape(-1, d)).reshape(b, -1, d)
            slots = slots + self.mlp(self.norm_pre_ff(slots))
        return slots


class ObjectDiscovery(nn.Module):
    def __init__(self, num_slots=5, dim=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, dim, 5, padding=2), nn.ReLU(), nn.Conv2d(dim, dim, 5, padding=2))
        self.slot_attn = SlotAttention(num_slots=num_slots, dim=dim)

    def forward(self, image):
        feats = self.encoder(image).flatten(2).transpose(1, 2)
        return self.slot_attn(feats)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ObjectDiscovery().to(device)
    images = torch.rand(4, 3, 32, 32, device=device)
    print(model(images).shape)
