# devcheck bug corpus: DC101
# From: https://github.com/scverse/scvi-tools/issues/3585
# From: https://github.com/scverse/scvi-tools/pull/3586
# scvi-tools' TorchMRVI.differential_expression with the module on the GPU: the
# per-batch offsets start from a bare torch.zeros(...) added to the GPU eps
# means, the uniform batch weights are a bare torch.ones(...) multiplied into
# the GPU log fold changes, and the chi-square test built on the host sample
# counts is evaluated at the GPU statistics.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.distributions as dist
import torch.nn as nn


class SummaryStats:
    def __init__(self, n_batch):
        self.n_batch = n_batch


class MRVAE(nn.Module):
    def __init__(self, n_genes=50, n_latent=8, n_samples=6):
        super().__init__()
        self.encoder = nn.Linear(n_genes + n_samples, n_latent)
        self.decoder = nn.Linear(n_latent + 1, n_genes)
        self.n_samples = n_samples

    def inference(self, x, cf_sample, mc_samples):
        onehot = nn.functional.one_hot(cf_sample, self.n_samples).float().expand(x.shape[0], -1)
        z = self.encoder(torch.cat([x, onehot], dim=-1))
        return z.expand(mc_samples, -1, -1) + 0.1 * torch.randn_like(z.expand(mc_samples, -1, -1))

    def compute_h(self, eps, batch_index):
        return self.decoder(torch.cat([eps, batch_index.float()], dim=-1)).exp()


class TorchMRVI:
    def __init__(self, module, n_batch, device):
        self.module = module.to(device)
        self.device = device
        self.summary_stats = SummaryStats(n_batch)

    @torch.inference_mode()
    def differential_expression(self, x, Amat, n_samples_per_cell, mc_samples=4, eps_lfc=1e-4):
        x = x.to(self.device)
        cf = torch.arange(self.module.n_samples, device=self.device)
        eps_ = torch.stack([self.module.inference(x, c, mc_samples) for c in cf]).permute(1, 2, 0, 3)
        eps_std = eps_.std(dim=2, keepdim=True)
        eps_mean = eps_.mean(dim=2, keepdim=True)
        eps = (eps_ - eps_mean) / (1e-6 + eps_std)
        betas = torch.einsum("nks,ansd->ankd", Amat.to(self.device), eps)
        ts = (betas**2).mean(dim=0).sum(dim=-1)
        pvals = 1 - dist.Chi2(n_samples_per_cell[:, None]).cdf(ts)  # <- bug

        betas_ = (betas * eps_std).permute(0, 2, 1, 3)
        eps_mean_ = eps_mean.permute(0, 2, 1, 3)
        n_batch = self.summary_stats.n_batch
        batch_weights = (1.0 / n_batch) * torch.ones(n_batch)
        mc, _, n_cells, n_latent = betas_.shape
        betas_offset_ = torch.zeros((mc, n_batch, n_cells, n_latent)) + eps_mean_  # <- bug
        lfcs = []
        for b in range(n_batch):
            idx = torch.full((mc, n_cells, 1), b, device=self.device)
            x_1 = self.module.compute_h(betas_[:, 0] + betas_offset_[:, b], idx)
            x_0 = self.module.compute_h(betas_offset_[:, b], idx)
            lfcs.append(torch.log2(x_1 + eps_lfc) - torch.log2(x_0 + eps_lfc))
        lfcs = torch.stack(lfcs).mean(1)
        lfc_mean = (batch_weights[:, None, None] * lfcs).sum(0) / batch_weights.sum()  # <- bug
        return pvals, lfc_mean


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TorchMRVI(MRVAE(), n_batch=3, device=device)
    x = torch.rand(20, 50)
    Amat = torch.rand(20, 2, 6)
    n_samples_per_cell = torch.full((20,), 6.0)
    pvals, lfc = model.differential_expression(x, Amat, n_samples_per_cell)
    print(pvals.shape, lfc.shape)


if __name__ == "__main__":
    main()
