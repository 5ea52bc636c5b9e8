# devcheck bug corpus: DC113
# From: https://github.com/JSchlensok/VespaG/pull/25
# VespaG's prediction loop picks the GPU when there is one, moves the model
# and each protein's embedding there, and stored each protein's masked
# scores with y.detach().numpy(): on a GPU that fails, the scores being CUDA
# tensors. The pull request replaces it with .detach().cpu().numpy().
# Written for devcheck's tests after the thread; not the project's code.
from pathlib import Path

import h5py
import numpy as np
import torch
import torch.nn as nn
from Bio import SeqIO

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"


def get_device():
    return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def load_model(embedding_dim=2560, hidden_dim=256):
    return nn.Sequential(nn.Linear(embedding_dim, hidden_dim), nn.LeakyReLU(),
                         nn.Linear(hidden_dim, len(AMINO_ACIDS)))


def mask_non_mutations(y, sequence):
    for i, aa in enumerate(sequence):
        y[i, AMINO_ACIDS.index(aa)] = 0.0
    return y


def generate_predictions(fasta_file: Path, embedding_file: Path, normalize_scores: bool = True):
    device = get_device()
    model = load_model().eval().to(device, dtype=torch.float)
    sequences = {rec.id: str(rec.seq) for rec in SeqIO.parse(fasta_file, "fasta")}
    embeddings = {id: torch.from_numpy(np.array(emb[()], dtype=np.float32))
                  for id, emb in h5py.File(embedding_file).items()}
    vespag_scores = {}
    with torch.no_grad():
        for id, sequence in sequences.items():
            embedding = embeddings[id].to(device).unsqueeze(0)
            y = model(embedding).squeeze(0)
            y = mask_non_mutations(y, sequence)
            vespag_scores[id] = y.detach().numpy()  # <- bug
    if normalize_scores:
        all_scores = np.concatenate([y.flatten() for y in vespag_scores.values()])
        lo, hi = all_scores.min(), all_scores.max()
        vespag_scores = {id: (y - lo) / (hi - lo) for id, y in vespag_scores.items()}
    return vespag_scores
