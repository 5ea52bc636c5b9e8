# devcheck bug corpus: DC120
# From: https://github.com/ankandrew/online-label-smoothing-pt/issues/2
# Training with Online Label Smoothing: the model and the batches are on the
# GPU, but the OnlineLabelSmoothing criterion, whose soft-label matrices are
# registered buffers, is built on the CPU and never moved, so its
# index_select of the supervision matrix with GPU labels mixes devices.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch import Tensor
from torch.utils.data import DataLoader, TensorDataset


class OnlineLabelSmoothing(nn.Module):
    def __init__(self, alpha: float, n_classes: int, smoothing: float = 0.1):
        super().__init__()
        self.a = alpha
        self.register_buffer("supervise", torch.zeros(n_classes, n_classes))
        self.supervise.fill_(smoothing / (n_classes - 1))
        self.supervise.fill_diagonal_(1 - smoothing)
        self.register_buffer("update", torch.zeros_like(self.supervise))
        self.register_buffer("idx_count", torch.zeros(n_classes))
        self.hard_loss = nn.CrossEntropyLoss()

    def forward(self, y_h: Tensor, y: Tensor):
        return self.a * self.hard_loss(y_h, y) + (1 - self.a) * self.soft_loss(y_h, y)

    def soft_loss(self, y_h: Tensor, y: Tensor):
        y_h = y_h.log_softmax(dim=-1)
        if self.training:
            with torch.no_grad():
                pred = y_h.exp().argmax(dim=-1)
                mask = pred == y
                self.update.index_add_(1, pred[mask], y_h.exp()[mask].swapaxes(-1, -2))
                self.idx_count.index_add_(0, pred[mask], torch.ones_like(pred[mask], dtype=torch.float32))
        true_dist = torch.index_select(self.supervise, 1, y).swapaxes(-1, -2)
        return torch.mean(torch.sum(-true_dist * y_h, dim=-1))

    def next_epoch(self):
        self.idx_count[torch.eq(self.idx_count, 0)] = 1
        self.update /= self.idx_count
        self.idx_count.zero_()
        self.supervise = self.update
        self.update = self.update.clone().zero_()


if __name__ == "__main__":
    k, b = 4, 32
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, k)).to(device)
    criterion = OnlineLabelSmoothing(alpha=0.5, n_classes=k, smoothing=0.1)  # <- bug
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(torch.randn(256, 16), torch.randint(0, k, (256,))), batch_size=b)
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        criterion.next_epoch()
