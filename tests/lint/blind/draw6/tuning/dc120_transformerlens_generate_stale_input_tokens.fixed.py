# devcheck bug corpus: DC120
# From: https://github.com/TransformerLensOrg/TransformerLens/issues/1508
# From: https://github.com/TransformerLensOrg/TransformerLens/pull/1509
# Fixed: after the prompt is moved to the model's device, the second name
# is pointed at the moved tensor again, so the final concatenation is on one
# device.
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Config:
    d_vocab: int = 64
    d_model: int = 32
    n_ctx: int = 128
    device: str = "cuda" if torch.cuda.is_available() else "cpu"


class TinyHooked(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.d_vocab, cfg.d_model)
        self.block = nn.TransformerEncoderLayer(cfg.d_model, nhead=4, batch_first=True)
        self.unembed = nn.Linear(cfg.d_model, cfg.d_vocab)

    def forward(self, tokens):
        return self.unembed(self.block(self.embed(tokens)))

    @torch.no_grad()
    def generate(self, input, max_new_tokens=8, temperature=1.0, do_sample=True):
        if input.ndim == 2:
            input_type = "tokens"
        else:
            input_type = "embeds"
        input_tokens = input if input_type == "tokens" else None  # <- fixed
        input = input.to(self.cfg.device)
        if input_tokens is not None:  # <- fixed
            input_tokens = input  # <- fixed
        generated = []
        current = input
        for _ in range(max_new_tokens):
            logits = self(current)[:, -1, :]
            if do_sample:
                probs = torch.softmax(logits / temperature, dim=-1)
                nxt = torch.multinomial(probs, 1)
            else:
                nxt = logits.argmax(dim=-1, keepdim=True)
            generated.append(nxt)
            current = torch.cat([current, nxt], dim=1)
        sampled = torch.cat(generated, dim=1)
        return torch.cat((input_tokens, sampled), dim=1)


cfg = Config()
model = TinyHooked(cfg).to(cfg.device)
prompt = torch.randint(0, cfg.d_vocab, (2, 5))
print(model.generate(prompt, max_new_tokens=4, do_sample=False))
