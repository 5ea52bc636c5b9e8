# kind: sync-per-step
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/rosinality/style-based-gan-pytorch/pull/50
# fix: "Call item() less frequently": read the losses for the progress text every 10 iterations only
"""A small GAN training loop that writes the generator and discriminator
losses into the progress text on every iteration with .item()."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)).to(device)
g_optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.0, 0.99))
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=1e-3, betas=(0.0, 0.99))
real_data = torch.randn(256, 2) * 0.5 + torch.tensor([2.0, -1.0])

disc_loss_val = gen_loss_val = 0.0
for i in range(30):
    real = real_data[(i * 16) % 256:(i * 16) % 256 + 16].to(device)
    fake = generator(torch.randn(16, 4, device=device))
    real_predict = nn.functional.softplus(-discriminator(real)).mean()
    fake_predict = nn.functional.softplus(discriminator(fake.detach())).mean()
    d_optimizer.zero_grad()
    (real_predict + fake_predict).backward()
    d_optimizer.step()
    if i % 10 == 0:
        disc_loss_val = (real_predict + fake_predict).item()

    gen_loss = nn.functional.softplus(-discriminator(generator(torch.randn(16, 4, device=device)))).mean()
    g_optimizer.zero_grad()
    gen_loss.backward()
    g_optimizer.step()
    if i % 10 == 0:
        gen_loss_val = gen_loss.item()
    state_msg = f"Size: 4; G: {gen_loss_val:.3f}; D: {disc_loss_val:.3f}"
print(state_msg)
