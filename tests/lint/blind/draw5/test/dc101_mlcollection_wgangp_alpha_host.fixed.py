# devcheck bug corpus: DC101
# From: https://github.com/aladdinpersson/Machine-Learning-Collection/issues/58
# Fixed: the gradient penalty helper moves its interpolation weights alpha
# to the device it is given (the training loop passes its device), so they
# meet the real and fake images on the same device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.optim as optim
import torchvision.datasets as datasets
import torchvision.transforms as T
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"
Z_DIM, CRITIC_ITERS, LAMBDA_GP = 100, 5, 10


def gradient_penalty(critic, real, fake, device="cpu"):
    n, c, h, w = real.shape
    alpha = torch.rand((n, 1, 1, 1)).repeat(1, c, h, w).to(device)  # <- fixed
    mixed = real * alpha + fake * (1 - alpha)
    scores = critic(mixed)
    grads = torch.autograd.grad(
        inputs=mixed, outputs=scores, grad_outputs=torch.ones_like(scores),
        create_graph=True, retain_graph=True,
    )[0]
    grads = grads.view(grads.shape[0], -1)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


gen = nn.Sequential(nn.ConvTranspose2d(Z_DIM, 64, 7), nn.ReLU(),
                    nn.ConvTranspose2d(64, 1, 4, 4), nn.Tanh()).to(device)
critic = nn.Sequential(nn.Conv2d(1, 64, 4, 4), nn.LeakyReLU(0.2),
                       nn.Conv2d(64, 1, 7)).to(device)
opt_gen = optim.Adam(gen.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_critic = optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))

tf = T.Compose([T.Resize(28), T.ToTensor(), T.Normalize([0.5], [0.5])])
loader = DataLoader(datasets.MNIST("dataset/", transform=tf, download=True),
                    batch_size=64, shuffle=True)

for epoch in range(5):
    for real, _ in loader:
        real = real.to(device)
        for _ in range(CRITIC_ITERS):
            noise = torch.randn(real.shape[0], Z_DIM, 1, 1).to(device)
            fake = gen(noise)
            gp = gradient_penalty(critic, real, fake, device=device)
            loss_critic = -(critic(real).mean() - critic(fake).mean()) + LAMBDA_GP * gp
            critic.zero_grad()
            loss_critic.backward(retain_graph=True)
            opt_critic.step()
        loss_gen = -critic(fake).mean()
        gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()
