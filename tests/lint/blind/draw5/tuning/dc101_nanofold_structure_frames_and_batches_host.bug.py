# devcheck bug corpus: DC101
# From: https://github.com/ogchen/nanofold/pull/4
# nanofold's first GPU run: the structure module is moved to the configured
# device, but its forward starts the backbone frames from torch.eye and
# torch.zeros on the CPU, the training loop makes the initial single
# representation with torch.zeros on the CPU, the dataset yields its
# tensors on the CPU, and the input embedder is never moved.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def encode_one_hot(seq):
    return nn.functional.one_hot(torch.tensor([AMINO.index(r) for r in seq]), len(AMINO)).float()


class ChainDataset(IterableDataset):
    def __init__(self, rows, residue_crop_size):
        super().__init__()
        self.rows, self.residue_crop_size = rows, residue_crop_size

    def __iter__(self):
        for row in self.rows:
            yield self.process_row(dict(row))

    def process_row(self, row):
        n = self.residue_crop_size
        row["rotations"] = torch.tensor(row["rotations"][:n]).reshape(-1, 3, 3)  # <- bug
        row["translations"] = torch.tensor(row["translations"][:n]).reshape(-1, 3)  # <- bug
        row["positions"] = torch.tensor(row["positions"][:n])  # <- bug
        row["target_feat"] = encode_one_hot(row["sequence"][:n])  # <- bug
        return row


class InputEmbedding(nn.Module):
    def __init__(self, pair_size=32):
        super().__init__()
        self.left, self.right = nn.Linear(len(AMINO), pair_size), nn.Linear(len(AMINO), pair_size)
        self.pos = nn.Embedding(65, pair_size)

    def forward(self, target_feat, positions):
        rel = (positions[..., :, None] - positions[..., None, :]).clamp(-32, 32) + 32
        return self.left(target_feat)[..., :, None, :] + self.right(target_feat)[..., None, :, :] + self.pos(rel)


class StructureModule(nn.Module):
    def __init__(self, single_size=64, pair_size=32, num_layers=4):
        super().__init__()
        self.single_layer_norm, self.pair_layer_norm = nn.LayerNorm(single_size), nn.LayerNorm(pair_size)
        self.layers = nn.ModuleList(nn.Linear(single_size + pair_size, single_size) for _ in range(num_layers))
        self.to_update = nn.Linear(single_size, 6)

    def forward(self, single, pair, rotations_truth, translations_truth):
        batch_dims = single.shape[:-1]
        single, pair = self.single_layer_norm(single), self.pair_layer_norm(pair)
        rotations = torch.eye(3).unsqueeze(0).repeat(*batch_dims, 1, 1)  # <- bug
        translations = torch.zeros(*batch_dims, 3)  # <- bug
        for layer in self.layers:
            single = single + layer(torch.cat([single, pair.mean(-2)], -1)).relu()
            translations = translations + self.to_update(single)[..., 3:]
        pred = (rotations @ translations[..., None])[..., 0]
        return ((pred - translations_truth) ** 2).mean() + ((rotations - rotations_truth) ** 2).mean()


def main(rows, device="cuda", single_size=64, epochs=100):
    loader = DataLoader(ChainDataset(rows, residue_crop_size=32), batch_size=4)
    input_embedder = InputEmbedding()  # <- bug
    model = StructureModule(single_size=single_size).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch, batch in enumerate(loader):
        if epoch == epochs:
            break
        pair = input_embedder(batch["target_feat"], batch["positions"])
        single = torch.zeros(*batch["positions"].shape, single_size)  # <- bug
        loss = model(single, pair, batch["rotations"], batch["translations"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
