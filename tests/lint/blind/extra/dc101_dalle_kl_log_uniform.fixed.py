# devcheck bug corpus: DC101
# From: https://github.com/lucidrains/DALLE-pytorch/issues/41
# Fixed: the prior's tensor is made on the logits' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class DiscreteVAE(nn.Module):
    def __init__(self, num_tokens, dim):
        super().__init__()
        self.num_tokens = num_tokens
        self.encoder = nn.Conv2d(3, num_tokens, 4, stride=2, padding=1)
        self.codebook = nn.Embedding(num_tokens, dim)
        self.decoder = nn.ConvTranspose2d(dim, 3, 4, stride=2, padding=1)

    def forward(self, img, temp=0.9):
        logits = self.encoder(img)
        soft_one_hot = F.gumbel_softmax(logits, tau=temp, dim=1)
        sampled = torch.einsum("b n h w, n d -> b d h w", soft_one_hot, self.codebook.weight)
        out = self.decoder(sampled)
        recon_loss = F.mse_loss(img, out)
        qy = F.softmax(logits, dim=1)
        log_qy = F.log_softmax(logits, dim=1)
        log_uniform = torch.log(torch.tensor([1.0 / self.num_tokens], device=logits.device))  # <- fixed
        kl_div = (qy * (log_qy - log_uniform)).sum(dim=1).mean()
        return recon_loss + kl_div
