# devcheck bug corpus: DC109
# From: https://github.com/karpathy/nanoGPT/pull/709
# From: https://github.com/karpathy/nanoGPT/issues/635
# The fix builds the scaler with torch.amp.GradScaler("cuda", enabled=...),
# matching the torch.amp.autocast already used.
# Written for devcheck's tests after the thread; not the project's code.
import math
import time
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn

batch_size = 12
block_size = 256
learning_rate = 6e-4
max_iters = 2000
device = "cuda"
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"
device_type = "cuda" if "cuda" in device else "cpu"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

data = np.memmap("train.bin", dtype=np.uint16, mode="r")


def get_batch():
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block_size].astype(np.int64)) for i in ix])
    if device_type == "cuda":
        x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
    else:
        x, y = x.to(device), y.to(device)
    return x, y


class TinyLM(nn.Module):
    def __init__(self, vocab_size=50304, n_embd=384):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.block = nn.TransformerEncoderLayer(n_embd, 6, 4 * n_embd, batch_first=True)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets):
        logits = self.lm_head(self.block(self.wte(idx)))
        return logits, nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


model = TinyLM()
model.to(device)

# initialize a GradScaler. If enabled=False scaler is a no-op
scaler = torch.amp.GradScaler("cuda", enabled=(dtype == "float16"))  # <- fixed
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95))

t0 = time.time()
X, Y = get_batch()
for iter_num in range(max_iters):
    lr = learning_rate * 0.5 * (1.0 + math.cos(math.pi * iter_num / max_iters))
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    with ctx:
        logits, loss = model(X, Y)
    X, Y = get_batch()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
