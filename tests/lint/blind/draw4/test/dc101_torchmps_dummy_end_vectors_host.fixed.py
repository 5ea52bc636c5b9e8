# devcheck bug corpus: DC101
# From: https://github.com/jemisjoky/TorchMPS/issues/8
# From: https://github.com/jemisjoky/TorchMPS/commit/a3eff02dfe54d9d2d8f2e52d0e846748241d93d3
# The fix (commit a3eff02, "Fixes #8") builds the embedding with
# torch.stack from the input itself, and moves the dummy end vectors to the
# input's device (cuda:<index> when the input is on CUDA, else cpu).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torchvision import datasets, transforms


class MPS(nn.Module):
    def __init__(self, input_dim, output_dim, bond_dim, feature_dim=2):
        super().__init__()
        self.input_dim = input_dim
        self.feature_dim = feature_dim
        self.bond_dim = bond_dim
        self.cores = nn.Parameter(torch.randn(input_dim, feature_dim, bond_dim, bond_dim) * 0.1
                                  + torch.eye(bond_dim).expand(input_dim, feature_dim, bond_dim, bond_dim))
        self.label_core = nn.Parameter(torch.randn(output_dim, bond_dim, bond_dim) * 0.1 + torch.eye(bond_dim))

    def embed_input(self, input_data):
        embedded_data = torch.stack([input_data, 1 - input_data], dim=2)  # <- fixed
        return embedded_data

    def forward(self, input_data):
        embedded = self.embed_input(input_data)
        mats = torch.einsum("bnf,nfij->bnij", embedded, self.cores)
        batch = input_data.size(0)
        to_cuda = input_data.is_cuda  # <- fixed
        device = f"cuda:{input_data.get_device()}" if to_cuda else "cpu"  # <- fixed
        end_vecs = [torch.zeros(dim).to(device) for dim in (self.bond_dim, self.bond_dim)]  # <- fixed
        for vec in end_vecs:
            vec[0] = 1
        left = end_vecs[0].expand(batch, 1, self.bond_dim)
        half = self.input_dim // 2
        for n in range(half):
            left = torch.bmm(left, mats[:, n])
        right = end_vecs[1].expand(batch, self.bond_dim, 1)
        for n in reversed(range(half, self.input_dim)):
            right = torch.bmm(mats[:, n], right)
        return torch.einsum("bi,oij,bj->bo", left[:, 0], self.label_core, right[:, :, 0])


if __name__ == "__main__":
    device = "cuda:0"
    mps = MPS(input_dim=28 ** 2, output_dim=10, bond_dim=20).to(device)
    loss_fun = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(mps.parameters(), lr=1e-4)
    train_set = datasets.MNIST("./mnist", download=True, transform=transforms.ToTensor())
    loader = torch.utils.data.DataLoader(train_set, batch_size=100, shuffle=True)
    for inputs, labels in loader:
        inputs, labels = inputs.view(-1, 28 ** 2).to(device), labels.to(device)
        loss = loss_fun(mps(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss.item())
        break
