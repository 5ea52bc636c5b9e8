# kind: sync-per-step
# source: https://github.com/meta-pytorch/torchtune/pull/522
# fix: move loss.item() into the log_every_n_steps block, so the host waits for the device only when it logs
# expect-finding: sync
# sanitizer: sync
"""A fine-tuning recipe's loop: the loss is turned into a Python number on
every step, though it is printed only every log_every_n_steps."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

vocab, dim = 32, 16
model = nn.Sequential(nn.Embedding(vocab, dim), nn.Linear(dim, vocab)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
tokens = torch.randint(0, vocab, (40, 9))
log_every_n_steps = 10
for idx in range(40):
    batch = tokens[idx].to(device)
    logits = model(batch[:-1])
    loss = loss_fn(logits, batch[1:])
    loss_to_log = loss.item()  # BUG:sync
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if idx % log_every_n_steps == 0:
        print(f"step {idx}: loss {loss_to_log:.4f}")
