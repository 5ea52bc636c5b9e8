# devcheck bug corpus: DC101
# From: https://github.com/ogchen/nanofold/pull/4
# Fixed: the forward makes the starting frames on the single
# representation's device, the loop makes the single representation on the
# configured device, the dataset is given the device and makes its tensors
# there, and the input embedder is moved to it.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def encode_one_hot(seq):
    return nn.functional.one_hot(torch.tensor([AMINO.index(r) for r in seq]), len(AMINO)).float()


class ChainDataset(IterableDataset):
    def __init__(self, rows, residue_crop_size, device):  # <- fixed
        super().__init__()
        self.rows, self.residue_crop_size = rows, residue_crop_size
        self.device = device  # <- fixed

    def __iter__(self):
        for row in self.rows:
            yield self.process_row(dict(row))

    def process_row(self, row):
        n = self.residue_crop_size
        row["rotations"] = torch.tensor(row["rotations"][:n], device=self.device).reshape(-1, 3, 3)  # <- fixed
        row["translations"] = torch.tensor(row["translations"][:n], device=self.device).reshape(-1, 3)  # <- fixed
        row["positions"] = torch.tensor(row["positions"][:n], device=self.device)  # <- fixed
        row["target_feat"] = encode_one_hot(row["sequence"][:n]).to(self.device)  # <- fixed
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
        rotations = torch.eye(3, device=single.device).unsqueeze(0).repeat(*batch_dims, 1, 1)  # <- fixed
        translations = torch.zeros(*batch_dims, 3, device=single.device)  # <- fixed
        for layer in self.layers:
            single = single + layer(torch.cat([single, pair.mean(-2)], -1)).relu()
            translations = translations + self.to_update(single)[..., 3:]
        pred = (rotations @ translations[..., None])[..., 0]
        return ((pred - translations_truth) ** 2).mean() + ((rotations - rotations_truth) ** 2).mean()


def main(rows, device="cuda", single_size=64, epochs=100):
    loader = DataLoader(ChainDataset(rows, residue_crop_size=32, device=device), batch_size=4)  # <- fixed
    input_embedder = InputEmbedding()  # <- fixed
    input_embedder.to(device)  # <- fixed
    model = StructureModule(single_size=single_size).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch, batch in enumerate(loader):
        if epoch == epochs:
            break
        pair = input_embedder(batch["target_feat"], batch["positions"])
        single = torch.zeros(*batch["positions"].shape, single_size, device=device)  # <- fixed
        loss = model(single, pair, batch["rotations"], batch["translations"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
