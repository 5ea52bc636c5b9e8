# devcheck bug corpus: DC112
# From: https://github.com/Jaimomar99/deeplocpro/issues/7
# The predictor puts its ESM2 ensemble on the device the user chooses
# (--device, "cpu" by default), but the embedding helper sends the tokens to
# "cuda" whenever a GPU is visible: on a GPU host run with the default device,
# the CPU embedding table is indexed with CUDA tokens.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
from typing import List

import torch
import torch.nn as nn
from esm import pretrained


class LocalizationHead(nn.Module):
    def __init__(self, embed_dim=1280, hidden=256, n_classes=6):
        super().__init__()
        self.attn = nn.Linear(embed_dim, 1)
        self.out = nn.Sequential(nn.Linear(embed_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, x, mask):
        scores = self.attn(x).squeeze(-1).masked_fill(mask == 0, -1e9)
        alpha = scores.softmax(dim=-1)
        pooled = (alpha.unsqueeze(-1) * x).sum(1)
        return self.out(pooled), alpha


class EnsembleModel(nn.Module):
    def __init__(self, n_heads=20):
        super().__init__()
        self.esm_model, self.esm_alphabet = pretrained.load_model_and_alphabet("esm2_t33_650M_UR50D")
        self.esm_model.eval()
        self.heads = nn.ModuleList([LocalizationHead() for _ in range(n_heads)])

    def forward(self, embeddings, masks):
        preds, attns = [], []
        for head in self.heads:
            p, a = head(embeddings, masks)
            preds.append(p.softmax(dim=-1))
            attns.append(a)
        return torch.stack(preds).mean(0).cpu().numpy(), torch.stack(attns).mean(0).cpu().numpy()

    def embed_batch(self, sequences: List[str]):
        batch_converter = self.esm_alphabet.get_batch_converter()
        embeddings, masks = [], []
        for seq in sequences:
            _, _, toks = batch_converter([("seq", seq)])
            if torch.cuda.is_available():
                toks = toks.to(device="cuda", non_blocking=True)  # <- bug
            out = self.esm_model(toks, repr_layers=[33], return_contacts=False)["representations"][33]
            out = out.cpu()
            emb = out.transpose(0, 1)[1:-1][:, 0]
            embeddings.append(emb)
            masks.append(torch.ones(emb.shape[0]))
        embeddings = nn.utils.rnn.pad_sequence(embeddings, batch_first=True)
        masks = nn.utils.rnn.pad_sequence(masks, batch_first=True)
        return embeddings, masks


def run_model(batches, args):
    results = {}
    with torch.no_grad():
        model = EnsembleModel().to(args.device)
        for sequences, names in batches:
            embeddings, masks = model.embed_batch(sequences)  # <- bug
            probs, attn = model(embeddings.to(args.device), masks.to(args.device))
            results[names[0]] = (probs, attn)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-d", "--device", type=str, default="cpu", choices=["cpu", "cuda", "mps"])
    args = parser.parse_args()
    print(run_model([(["MKTAYIAKQRQISFVKSHFSRQ"], ["seq1"])], args))
