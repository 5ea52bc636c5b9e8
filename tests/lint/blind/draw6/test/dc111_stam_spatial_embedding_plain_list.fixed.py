# devcheck bug corpus: DC111
# From: https://github.com/duyanhpham-brs/XAI-Multivariate-Time-Series/pull/61
# From: https://github.com/duyanhpham-brs/XAI-Multivariate-Time-Series/pull/63
# After a first attempt (#61, #62: moving the layers' outputs), the fix (#63)
# moves each per-variable nn.Linear to the device when it is made, so the
# plain list (left as it was) holds layers already on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def init_hidden(x, hidden_size, num_layers):
    return torch.zeros(num_layers, x.size(0), hidden_size).to(x.device)


class Encoder(nn.Module):
    def __init__(self, input_size, time_length, hidden_size, spat_dropout=0.1, temp_dropout=0.1, spatial_emb_size=100):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.time_length = time_length
        self.spatial_emb_size = spatial_emb_size
        self.s_dropout = nn.Dropout(spat_dropout)
        self.t_dropout = nn.Dropout(temp_dropout)
        self.temporal_emb_converter = nn.LSTM(input_size=1, hidden_size=hidden_size, num_layers=2, batch_first=True)
        self.spatial_emb_converter = []  # <- fixed
        for _ in range(self.input_size):
            self.spatial_emb_converter.append(nn.Linear(self.time_length, self.spatial_emb_size).to(device))  # <- fixed

    def forward(self, input_data):
        input_data = input_data.to(device)
        hidden = init_hidden(input_data[:, :, 0], self.hidden_size, 2)
        cell = init_hidden(input_data[:, :, 0], self.hidden_size, 2)
        spatial_emb = torch.zeros(input_data.size(0), self.input_size, self.spatial_emb_size).to(device)
        for size in range(self.input_size):
            spatial_emb[:, size, :] = self.s_dropout(self.spatial_emb_converter[size](input_data[:, size, :]))
        temp_emb = []
        for i in range(self.time_length):
            _, (hidden, cell) = self.temporal_emb_converter(input_data[:, :, i].unsqueeze(2), (hidden, cell))
            hidden, cell = self.t_dropout(hidden), self.t_dropout(cell)
            temp_emb.append(hidden[1].unsqueeze(0))
        return spatial_emb, torch.cat(temp_emb, dim=0)


class STAM(nn.Module):
    def __init__(self, input_size, time_length, hidden_size, n_classes, spatial_emb_size=100):
        super().__init__()
        self.encoder = Encoder(input_size, time_length, hidden_size, spatial_emb_size=spatial_emb_size)
        self.spatial_attn = nn.Linear(spatial_emb_size, 1)
        self.temporal_attn = nn.Linear(hidden_size, 1)
        self.out = nn.Linear(spatial_emb_size + hidden_size, n_classes)

    def forward(self, x):
        spatial_emb, temp_emb = self.encoder(x)
        s_weights = torch.softmax(self.spatial_attn(spatial_emb), dim=1)
        s_context = (s_weights * spatial_emb).sum(dim=1)
        temp_emb = temp_emb.transpose(0, 1)
        t_weights = torch.softmax(self.temporal_attn(temp_emb), dim=1)
        t_context = (t_weights * temp_emb).sum(dim=1)
        return self.out(torch.cat([s_context, t_context], dim=-1))


if __name__ == "__main__":
    model = STAM(input_size=6, time_length=48, hidden_size=64, n_classes=4).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(32, 6, 48)
    y = torch.randint(0, 4, (32,)).to(device)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
