# devcheck bug corpus: DC102
# From: https://github.com/pytorch/pytorch/issues/14072
# A speech-enhancement training loop moved the model to CUDA and called
# inputs.to(device) and labels.to(device) as statements: .to() returns a copy, so
# the batch stayed on the host and the first layer failed.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils import data


def train(args, model, train_set):
    train_loader = data.DataLoader(train_set, batch_size=args.batch_size, num_workers=8)
    device = torch.device("cuda")
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for inputs, labels in train_loader:
            inputs = inputs.to(device)  # <- fixed
            labels = labels.to(device)  # <- fixed
            loss = torch.nn.functional.mse_loss(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
