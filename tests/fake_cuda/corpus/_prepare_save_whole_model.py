"""Prepare step for load_2: trains on the default GPU and pickles the whole
model (torch.save(model)) to model.pt, as the question's training run did."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 10), nn.Linear(10, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


if __name__ == "__main__":
    torch.manual_seed(0)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(12, 6), torch.randint(0, 3, (12,))
    for step in range(3):
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save(model, "model.pt")
