# devcheck bug corpus: DC102
# From: https://github.com/kitsuyaazuma/blazefl/pull/6
# BlazeFL's FedAvg serial client trainer is given a device ("cuda") but its
# local training loop calls data.to(self.device) and target.to(self.device)
# as statements, dropping the moved copies, and never moves the model
# either: the device argument is ignored (and a model placed on the GPU by
# the caller gets CPU batches).
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


def serialize_model(model):
    return torch.cat([p.data.view(-1) for p in model.state_dict().values()])


def deserialize_model(model, flat):
    offset = 0
    for p in model.state_dict().values():
        n = p.numel()
        p.copy_(flat[offset:offset + n].view_as(p))
        offset += n


@dataclass
class FedAvgUplinkPackage:
    model_parameters: torch.Tensor
    data_size: int


class FedAvgSerialClientTrainer:
    def __init__(self, model, datasets, device, epochs, batch_size, lr):
        self.model = model
        self.datasets = datasets
        self.device = device
        self.epochs = epochs
        self.batch_size = batch_size
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.cache = []

    def local_process(self, model_parameters, cid_list):
        for cid in tqdm(cid_list, desc="Client", leave=False):
            loader = DataLoader(self.datasets[cid], batch_size=self.batch_size, shuffle=True)
            self.cache.append(self.train(model_parameters, loader))

    def train(self, model_parameters, train_loader):
        deserialize_model(self.model, model_parameters)
        self.model.train()
        data_size = 0
        for _ in range(self.epochs):
            for data, target in train_loader:
                data.to(self.device)  # <- bug
                target.to(self.device)  # <- bug
                output = self.model(data)
                loss = self.criterion(output, target)
                data_size += len(target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        return FedAvgUplinkPackage(serialize_model(self.model), data_size)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    datasets = [TensorDataset(torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))) for _ in range(4)]
    trainer = FedAvgSerialClientTrainer(model, datasets, device, epochs=1, batch_size=16, lr=0.05)
    global_params = serialize_model(model)
    for round_ in range(3):
        trainer.local_process(global_params, [0, 1, 2, 3])
        packs, trainer.cache = trainer.cache, []
        sizes = torch.tensor([p.data_size for p in packs], dtype=torch.float)
        stacked = torch.stack([p.model_parameters for p in packs], dim=-1)
        global_params = (stacked * (sizes / sizes.sum())).sum(dim=-1)
