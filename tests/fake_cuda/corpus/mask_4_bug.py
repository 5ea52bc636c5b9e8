# kind: mask-in-forward
# source: https://github.com/AstraZeneca/chemicalx/issues/96
# fix: (torch.eye(self.drug_channels).to(self.device)) -- the eye made on the model's device
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""CASTER-style drug-pair model: the sparse code of a pair against a learnt
dictionary is a ridge solve, (D D^T + lambda I)^-1, with I from torch.eye."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Caster(nn.Module):
    def __init__(self, drug_channels=16, latent=8, lambda3=1e-3):
        super().__init__()
        self.drug_channels, self.lambda3 = drug_channels, lambda3
        self.encoder = nn.Sequential(nn.Linear(drug_channels, latent), nn.ReLU())
        self.head = nn.Linear(drug_channels, 1)

    def dictionary_encoder(self, pair_latent, dictionary_latent):
        dtd = torch.matmul(dictionary_latent, dictionary_latent.transpose(2, 1))
        dtd_inv = torch.inverse(dtd + self.lambda3 * torch.eye(self.drug_channels))  # BUG:op # BUG:stray
        dtd_inv_dt = torch.matmul(dtd_inv, dictionary_latent)
        return pair_latent[:, None, :].matmul(dtd_inv_dt.transpose(2, 1)).squeeze(1)

    def forward(self, pair):
        pair_latent = self.encoder(pair)
        dictionary = torch.diag_embed(pair)
        dictionary_latent = self.encoder(dictionary)
        code = self.dictionary_encoder(pair_latent, dictionary_latent)
        return self.head(code).squeeze(1)


pairs = (torch.rand(6, 16) > 0.6).float()
labels = torch.randint(0, 2, (6,)).float()
model = Caster().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    logits = model(pairs.to(device))
    loss = nn.functional.binary_cross_entropy_with_logits(logits, labels.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
