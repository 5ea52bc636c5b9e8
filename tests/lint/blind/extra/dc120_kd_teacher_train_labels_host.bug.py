# devcheck bug corpus: DC120
# From: https://github.com/HoyTta0/KnowledgeDistillation/issues/10
# A knowledge-distillation project's teacher training function moved the
# model and each batch's token ids to the configured device but not the
# labels, which met the logits on the GPU in the loss: "Expected all tensors
# to be on the same device ... (when checking argument for argument target
# in method wrapper_nll_loss_forward)". The fix moves the labels too, in the
# training and the evaluation functions.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Config:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.num_epochs = 2
        self.learning_rate = 2e-5


class Teacher(nn.Module):
    def __init__(self, vocab=1000, dim=64, num_classes=2):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim)
        self.fc = nn.Linear(dim, num_classes)

    def forward(self, ids):
        return self.fc(self.embed(ids))


def teacher_train(model, config, train_loader):
    model.to(config.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    for _ in range(config.num_epochs):
        for ids, labels in train_loader:
            ids = ids.to(config.device)
            outputs = model(ids)
            loss = F.cross_entropy(outputs, labels)  # <- bug
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def teacher_evaluate(model, config, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for ids, labels in loader:
            ids = ids.to(config.device)
            outputs = model(ids)
            correct += (outputs.argmax(1) == labels).sum().item()  # <- bug
    return correct


def main():
    config = Config()
    data = TensorDataset(torch.randint(0, 1000, (64, 12)), torch.randint(0, 2, (64,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = Teacher()
    teacher_train(model, config, loader)
    print(teacher_evaluate(model, config, loader))


if __name__ == "__main__":
    main()
