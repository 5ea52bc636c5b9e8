# devcheck bug corpus: DC101
# From: https://github.com/meta-pytorch/torchtune/pull/2276
# From: https://github.com/meta-pytorch/torchtune/commit/7747db1341375aac21fc4b938f6846e72ca75b7c
# The fix (PR #2276, commit 7747db1) builds the encoder token ids with
# device=tokens.device, so torch.isin compares tensors on one device.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict, Optional

import torch
import torch.nn as nn


class EarlyFusionModel(nn.Module):
    def __init__(self, decoder: nn.Module, encoders: Dict[str, nn.Module], encoder_tokens: Dict[str, int], vocab_size: int, embed_dim: int):
        super().__init__()
        self.decoder = decoder
        self.encoders = nn.ModuleDict(encoders)
        self.encoder_tokens = encoder_tokens
        self.tok_embeddings = nn.Embedding(vocab_size, embed_dim)

    def _decoder_embed(self, tokens):
        encoder_token_ids = torch.tensor(list(self.encoder_tokens.values()), device=tokens.device)  # <- fixed
        is_text = ~torch.isin(tokens, encoder_token_ids)
        text_tokens = torch.masked_select(tokens, is_text)
        return is_text, self.tok_embeddings(text_tokens)

    def forward(self, tokens: torch.Tensor, encoder_input: Optional[Dict[str, torch.Tensor]] = None):
        bsz, seq_len = tokens.shape
        is_text, text_embeds = self._decoder_embed(tokens)
        embed_dim = text_embeds.shape[-1]
        fused = torch.empty(bsz, seq_len, embed_dim, dtype=text_embeds.dtype, device=text_embeds.device)
        fused[is_text] = text_embeds
        if encoder_input is not None:
            for name, inp in encoder_input.items():
                enc = self.encoders[name](inp).reshape(-1, embed_dim)
                fused[tokens == self.encoder_tokens[name]] = enc.to(fused.dtype)
        return self.decoder(fused)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    decoder = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1000))
    encoders = {"image": nn.Sequential(nn.Flatten(1), nn.Linear(3 * 8 * 8, 64))}
    model = EarlyFusionModel(decoder, encoders, {"image": 999}, vocab_size=1000, embed_dim=64).to(device)
    tokens = torch.randint(0, 998, (2, 16), device=device)
    tokens[:, 0] = 999
    out = model(tokens, encoder_input={"image": torch.randn(2, 3, 8, 8, device=device)})
    print(out.shape)
