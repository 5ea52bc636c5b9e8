# kind: cuda0-vs-cuda1
# source: https://github.com/Project-MONAI/GenerativeModels/pull/371
# fix: torch.tensor(1).fill_(filling_label).type(input.type()).to(input[0].device) -- the commit of the pull request
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!
# sanitizer: mismatch
"""A patch discriminator's least-squares adversarial loss: the target label
tensor takes the input's type with .type(input.type()), which names the
device type but not the GPU; training runs on cuda:1."""
import torch
from torch import nn

torch.manual_seed(0)
if torch.cuda.device_count() > 1:
    device = torch.device("cuda:1")
else:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class PatchAdversarialLoss(nn.Module):
    def __init__(self, real_label=1.0, fake_label=0.0):
        super().__init__()
        self.real_label, self.fake_label = real_label, fake_label
        self.loss_fct = nn.MSELoss()

    def get_target_tensor(self, input, target_is_real):
        filling_label = self.real_label if target_is_real else self.fake_label
        label_tensor = torch.tensor(1).fill_(filling_label).type(input.type())  # BUG:stray
        label_tensor.requires_grad_(False)
        return label_tensor.expand_as(input)

    def forward(self, input, target_is_real):
        target = self.get_target_tensor(input, target_is_real)
        return self.loss_fct(input, target)  # BUG:op


discriminator = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2), nn.LeakyReLU(0.2), nn.Conv2d(4, 1, 3)).to(device)
adv_loss = PatchAdversarialLoss()
optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
real, fake = torch.randn(2, 1, 16, 16), torch.randn(2, 1, 16, 16)
for step in range(3):
    loss_d = 0.5 * (adv_loss(discriminator(real.to(device)), True) + adv_loss(discriminator(fake.to(device)), False))
    optimizer.zero_grad()
    loss_d.backward()
    optimizer.step()
print("loss_d", round(loss_d.item(), 4))
