# devcheck bug corpus: DC120
# From: https://github.com/KarhouTam/FL-bench/issues/172
# From: https://github.com/KarhouTam/FL-bench/commit/d5ed40cdbb1b072f33dd644b35c41ce5c101680b
# FL-bench keeps the server's global model on the CPU. evaluate_model() moves
# the model it is given to the evaluation device in place and leaves it there,
# so after the server's first evaluation its model sits on the GPU: FedIIR's
# gradient mean then starts from zeros_like(p) on the GPU and adds the
# clients' gradients, which they return as .cpu() copies.
# Written for devcheck's tests after the thread; not the project's code.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class DecoupledModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Sequential(nn.Flatten(), nn.Linear(784, 128))
        self.classifier = nn.Linear(128, 10)

    def forward(self, x):
        return self.classifier(F.relu(self.base(x)))


@torch.no_grad()
def evaluate_model(model, dataloader, device=torch.device("cpu")):
    model.eval()
    model.to(device)  # <- bug
    correct, total = 0, 0
    for x, y in dataloader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(-1) == y).sum().item()
        total += len(y)
    return correct / max(total, 1)


class FedIIRClient:
    def __init__(self, model, loader, device):
        self.model = copy.deepcopy(model).to(device)
        self.loader = loader
        self.device = device

    def grad(self, global_params):
        self.model.load_state_dict(global_params)
        grad_sum = tuple(torch.zeros_like(p) for p in self.model.classifier.parameters())
        total_batch = 0
        for x, y in self.loader:
            x, y = x.to(self.device), y.to(self.device)
            loss = F.cross_entropy(self.model(x), y)
            grads = torch.autograd.grad(loss, list(self.model.classifier.parameters()))
            grad_sum = tuple(g1 + g2 for g1, g2 in zip(grad_sum, grads))
            total_batch += 1
        return {"grad_sum": tuple(g.detach().cpu() for g in grad_sum), "total_batch": total_batch}


class FedIIRServer:
    def __init__(self, clients, testloader, device, ema=0.95):
        self.model = DecoupledModel()
        self.clients = clients
        self.testloader = testloader
        self.device = device
        self.ema = ema
        self.grad_mean = tuple(torch.zeros_like(p) for p in self.model.classifier.parameters())

    def calculate_grad_mean(self):
        batch_total = 0
        grad_sum = tuple(torch.zeros_like(p) for p in self.model.classifier.parameters())
        params = self.model.state_dict()
        for client in self.clients:
            package = client.grad(params)
            batch_total += package["total_batch"]
            grad_sum = tuple(g1 + g2 for g1, g2 in zip(grad_sum, package["grad_sum"]))
        grad_mean_new = tuple(g / batch_total for g in grad_sum)
        self.grad_mean = tuple(
            (self.ema * g1 + (1 - self.ema) * g2).cpu().clone() for g1, g2 in zip(self.grad_mean, grad_mean_new)
        )

    def evaluate(self):
        return evaluate_model(self.model, self.testloader, device=self.device)

    def run(self, rounds):
        for r in range(rounds):
            self.calculate_grad_mean()
            print(r, "test acc", self.evaluate())


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(512, 1, 28, 28), torch.randint(0, 10, (512,)))
    loaders = [DataLoader(data, batch_size=64) for _ in range(3)]
    clients = [FedIIRClient(DecoupledModel(), loader, device) for loader in loaders]
    server = FedIIRServer(clients, DataLoader(data, batch_size=128), device)
    server.run(rounds=5)


if __name__ == "__main__":
    main()
