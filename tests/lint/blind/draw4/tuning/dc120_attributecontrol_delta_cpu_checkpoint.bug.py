# devcheck bug corpus: DC120
# From: https://github.com/CompVis/attribute-control/pull/4
# learn_delta.py saves an intermediate checkpoint every ckpt_logging_freq
# steps as delta.cpu().state_dict(); Module.cpu() moves the learned embedding
# delta itself to the CPU, so the optimization steps after the first
# checkpoint add CPU delta parameters to the CUDA prompt embeddings.
# Written for devcheck's tests after the thread; not the project's code.
from pathlib import Path

import hydra
import torch
import torch.nn as nn
import torch.nn.functional as F
from omegaconf import DictConfig
from torch.utils.data import DataLoader, Dataset


class EmbeddingDelta(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.delta = nn.Parameter(torch.zeros(dims))

    def apply(self, emb, mask, scale):
        return emb + scale * mask[..., None] * self.delta


class PromptCombinationDataset(Dataset):
    def __init__(self, prompts, prefixes):
        self.prompts = prompts
        self.prefixes = prefixes

    def __len__(self):
        return len(self.prompts) * len(self.prefixes)

    def __getitem__(self, index):
        i = index // len(self.prefixes)
        prefix = self.prefixes[index % len(self.prefixes)]
        return {k: f"{prefix} {v}" for k, v in self.prompts[i].items()}


@hydra.main(config_path="configs", config_name="learn_delta")
def main(cfg: DictConfig):
    cfg = hydra.utils.instantiate(cfg)
    model = cfg.model
    dataloader = DataLoader(PromptCombinationDataset(cfg.prompts, cfg.prefixes), batch_size=1, shuffle=True)
    delta = EmbeddingDelta(model.dims)
    delta = delta.to(cfg.device)
    optimizer = torch.optim.AdamW(delta.parameters(), lr=1e-3)
    ckpt_dir = Path("./checkpoints")

    data_iter = iter(dataloader)
    for global_step in range(cfg.max_steps):
        batch = next(data_iter, None)
        if batch is None:
            data_iter = iter(dataloader)
            batch = next(data_iter)
        with torch.no_grad():
            emb_t = model.embed_prompt(batch["prompt_target"][0])
            emb_p = model.embed_prompt(batch["prompt_positive"][0])
            t = torch.rand((1,), device=cfg.device)
            x_t = model.sample(emb_t, cutoff_after_relative=float(t.item()), output_type="latent")
            eps_target = 2 * model.predict_eps(emb_p, x_t, t) - model.predict_eps(emb_t, x_t, t)
        mask = torch.ones(emb_t.shape[:-1], device=cfg.device)
        eps_delta = model.predict_eps(delta.apply(emb_t, mask, 1.0), x_t, t)
        loss = F.mse_loss(eps_delta, eps_target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if (global_step + 1) % cfg.ckpt_logging_freq == 0:
            path = ckpt_dir / f"delta_step_{global_step + 1}.pt"
            path.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"delta": delta.cpu().state_dict()}, path)  # <- bug

    torch.save({"delta": delta.cpu().state_dict()}, ckpt_dir / "delta.pt")


if __name__ == "__main__":
    main()
