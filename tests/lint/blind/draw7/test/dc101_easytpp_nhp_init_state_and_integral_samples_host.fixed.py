# devcheck bug corpus: DC101
# From: https://github.com/ant-research/EasyTemporalPointProcess/issues/5
# From: https://github.com/ant-research/EasyTemporalPointProcess/commit/7293d2f7a747e3e225c3f86c64493d703e74e6de
# Neural Hawkes process training on a GPU: the continuous-time LSTM's initial
# states are made with torch.zeros and the Monte Carlo sample ratios of the
# log-likelihood's integral with torch.linspace, both without a device, so
# they meet the event embeddings and the time deltas on the GPU. Fixed by
# giving the base model its device and making both on it.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn


def set_device(gpu):
    if gpu >= 0 and torch.cuda.is_available():
        return torch.device(f"cuda:{gpu}")
    return torch.device("cpu")


class TorchBaseModel(nn.Module):
    def __init__(self, model_config):
        super().__init__()
        self.hidden_size = model_config.hidden_size
        self.num_event_types = model_config.num_event_types
        self.pad_token_id = model_config.num_event_types
        self.loss_integral_num_sample_per_step = model_config.loss_integral_num_sample_per_step
        self.device = set_device(model_config.gpu)  # <- fixed
        self.layer_type_emb = nn.Embedding(self.num_event_types + 1, self.hidden_size,
                                           padding_idx=self.pad_token_id)

    def make_dtime_loss_samples(self, time_delta_seq):
        # [1, 1, n_samples]
        dtimes_ratio_sampled = torch.linspace(start=0.0,  # <- fixed
                                              end=1.0,
                                              steps=self.loss_integral_num_sample_per_step,
                                              device=self.device)[None, None, :]  # <- fixed
        # [batch_size, max_len, n_samples]
        return time_delta_seq[:, :, None] * dtimes_ratio_sampled


class ContTimeLSTMCell(nn.Module):
    def __init__(self, hidden_dim):
        super().__init__()
        self.linear_layer = nn.Linear(2 * hidden_dim, 7 * hidden_dim)
        self.softplus = nn.Softplus()

    def forward(self, x_i, hidden_ti_minus, ct_ti_minus, c_bar_im1):
        x_i_ = torch.cat((x_i, hidden_ti_minus), dim=1)
        i_i, i_bar_i, f_i, f_bar_i, z_i, o_i, delta_i = self.linear_layer(x_i_).chunk(7, dim=-1)
        i_i, i_bar_i, f_i, f_bar_i, o_i = [torch.sigmoid(t) for t in (i_i, i_bar_i, f_i, f_bar_i, o_i)]
        z_i = torch.tanh(z_i)
        delta_i = self.softplus(delta_i)
        c_i = f_i * ct_ti_minus + i_i * z_i
        c_bar_i = f_bar_i * c_bar_im1 + i_bar_i * z_i
        return c_i, c_bar_i, delta_i, o_i

    @staticmethod
    def decay(c_i, c_bar_i, delta_i, o_i, dtime):
        c_t = c_bar_i + (c_i - c_bar_i) * torch.exp(-delta_i * dtime)
        h_t = o_i * torch.tanh(c_t)
        return c_t, h_t


class NHP(TorchBaseModel):
    def __init__(self, model_config):
        super().__init__(model_config)
        self.rnn_cell = ContTimeLSTMCell(self.hidden_size)
        self.layer_intensity = nn.Sequential(
            nn.Linear(self.hidden_size, self.num_event_types), nn.Softplus())

    def init_state(self, batch_size):
        h_t, c_t, c_bar = torch.zeros(batch_size,  # <- fixed
                                      3 * self.hidden_size,
                                      device=self.device).chunk(3, dim=1)  # <- fixed
        return h_t, c_t, c_bar

    def forward(self, time_delta_seqs, type_seqs):
        batch_size, seq_len = type_seqs.shape
        h_t, c_t, c_bar_i = self.init_state(batch_size)
        hiddens, states = [], []
        for i in range(seq_len):
            x_i = self.layer_type_emb(type_seqs[:, i])
            c_i, c_bar_i, delta_i, o_i = self.rnn_cell(x_i, h_t, c_t, c_bar_i)
            c_t, h_t = self.rnn_cell.decay(c_i, c_bar_i, delta_i, o_i,
                                           time_delta_seqs[:, i, None])
            hiddens.append(h_t)
            states.append((c_i, c_bar_i, delta_i, o_i))
        return torch.stack(hiddens, dim=1), states

    def loglike_loss(self, time_delta_seqs, type_seqs):
        hiddens, states = self.forward(time_delta_seqs, type_seqs)
        lambda_at_event = self.layer_intensity(hiddens)
        event_ll = torch.log(lambda_at_event.gather(-1, type_seqs[..., None]) + 1e-8).sum()
        sample_dtimes = self.make_dtime_loss_samples(time_delta_seqs)
        c_i, c_bar_i, delta_i, o_i = [torch.stack(s, dim=1)[..., None, :] for s in zip(*states)]
        c_t = c_bar_i + (c_i - c_bar_i) * torch.exp(-delta_i * sample_dtimes[..., None])
        lambda_sample = self.layer_intensity(o_i * torch.tanh(c_t)).sum(-1)
        non_event_ll = (lambda_sample.mean(-1) * time_delta_seqs).sum()
        return -(event_ll - non_event_ll)


class ModelConfig:
    hidden_size = 32
    num_event_types = 5
    loss_integral_num_sample_per_step = 20
    gpu = 0


def train(config, batches, epochs=2):
    device = set_device(config.gpu)
    model = NHP(config)
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for time_delta_seqs, type_seqs in batches:
            time_delta_seqs = time_delta_seqs.to(device)
            type_seqs = type_seqs.to(device)
            loss = model.loglike_loss(time_delta_seqs, type_seqs)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


if __name__ == "__main__":
    data = [(torch.rand(8, 12), torch.randint(0, 5, (8, 12))) for _ in range(4)]
    train(ModelConfig(), data)
