# devcheck bug corpus: DC120
# From: https://github.com/Atcold/NYU-DLSP20/pull/669
# Fixed: `train_and_test` moves the model to the device before training it.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class SimpleRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size, batch_first=True)
        self.linear = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        h = self.rnn(x)[0]
        return self.linear(h[:, -1])


def train_and_test(model, train_data, test_data, epochs=10):
    model.to(device)  # <- fixed
    optimizer = torch.optim.RMSprop(model.parameters(), lr=0.001)
    criterion = nn.CrossEntropyLoss()
    for _ in range(epochs):
        model.train()
        for data, target in train_data:
            data, target = data.to(device), target.to(device)
            out = model(data)  # <- fixed
            loss = criterion(out, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            for data, target in test_data:
                data, target = data.to(device), target.to(device)
                print((model(data).argmax(1) == target).float().mean().item())


def main(train_data, test_data):
    model = SimpleRNN(input_size=4, hidden_size=4, output_size=4)
    train_and_test(model, train_data, test_data)
