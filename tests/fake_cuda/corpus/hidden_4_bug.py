# kind: hidden-state
# source: https://github.com/d2l-ai/d2l-en/pull/2233
# fix: if H is None: H = torch.zeros(inputs.shape[1], self.num_hiddens, device=inputs.device)
# expect: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat2 in method wrapper_mm)
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat2 in method wrapper_CUDA_mm)
# sanitizer: mismatch
"""A GRU written from scratch as in the book's chapter: the state starts as
torch.zeros when the caller passes none."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class GRUScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_hiddens = num_hiddens

        def three():
            return (nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma),
                    nn.Parameter(torch.randn(num_hiddens, num_hiddens) * sigma),
                    nn.Parameter(torch.zeros(num_hiddens)))

        self.W_xz, self.W_hz, self.b_z = three()
        self.W_xr, self.W_hr, self.b_r = three()
        self.W_xh, self.W_hh, self.b_h = three()

    def forward(self, inputs, H=None):
        if H is None:
            H = torch.zeros(inputs.shape[1], self.num_hiddens)  # BUG:stray
        outputs = []
        for X in inputs:
            Z = torch.sigmoid(torch.matmul(X, self.W_xz) + torch.matmul(H, self.W_hz) + self.b_z)  # BUG:op
            R = torch.sigmoid(torch.matmul(X, self.W_xr) + torch.matmul(H, self.W_hr) + self.b_r)
            H_tilde = torch.tanh(torch.matmul(X, self.W_xh) + torch.matmul(R * H, self.W_hh) + self.b_h)
            H = Z * H + (1 - Z) * H_tilde
            outputs.append(H)
        return outputs, H


vocab, steps, batch = 10, 6, 4
corpus = torch.randint(0, vocab, (steps + 1, batch))
rnn = GRUScratch(vocab, 16).to(device)
head = nn.Linear(16, vocab).to(device)
optimizer = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=1.0)
for epoch in range(3):
    X = nn.functional.one_hot(corpus[:-1], vocab).float().to(device)
    Y = corpus[1:].to(device)
    outputs, _ = rnn(X)
    logits = head(torch.stack(outputs))
    loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), Y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("perplexity", round(torch.exp(loss).item(), 3))
