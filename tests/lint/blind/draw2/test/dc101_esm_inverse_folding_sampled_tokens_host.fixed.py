# devcheck bug corpus: DC101
# From: https://github.com/facebookresearch/esm/pull/488
# Fixed: when a device is given, the sampled-token buffer is moved there
# before the decoding loop (the torch.full line itself is unchanged).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self, vocab_size=35, dim=512):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.output_projection = nn.Linear(dim, vocab_size)

    def forward(self, prev_output_tokens, encoder_out):
        x = self.embed_tokens(prev_output_tokens) + encoder_out.mean(1, keepdim=True)
        return self.output_projection(x).transpose(1, 2), None


class GVPTransformerModel(nn.Module):
    def __init__(self, mask_idx=32, cath_idx=33):
        super().__init__()
        self.encoder = nn.Linear(9, 512)
        self.decoder = Decoder()
        self.mask_idx = mask_idx
        self.cath_idx = cath_idx

    def sample(self, coords, partial_seq=None, temperature=1.0, device=None):
        L = len(coords)
        batch_coords = torch.as_tensor(coords, dtype=torch.float32).reshape(1, L, 9).to(device)
        sampled_tokens = torch.full((1, 1 + L), self.mask_idx, dtype=int)  # <- fixed
        sampled_tokens[0, 0] = self.cath_idx
        if partial_seq is not None:
            for i, c in enumerate(partial_seq):
                sampled_tokens[0, i + 1] = c
        encoder_out = self.encoder(batch_coords)
        if device:  # <- fixed
            sampled_tokens = sampled_tokens.to(device)  # <- fixed
        for i in range(1, L + 1):
            logits, _ = self.decoder(sampled_tokens[:, :i], encoder_out)
            logits = logits[0].transpose(0, 1)
            probs = F.softmax(logits / temperature, dim=-1)
            if sampled_tokens[0, i] == self.mask_idx:
                sampled_tokens[:, i] = torch.multinomial(probs[-1:], 1).squeeze(-1)
        return sampled_tokens[0, 1:].tolist()


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = GVPTransformerModel().eval().to(device)
    coords = [[[0.0, 0.0, 0.0]] * 3] * 50
    with torch.no_grad():
        print(model.sample(coords, temperature=1e-6, device=device))
