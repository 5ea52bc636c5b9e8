# devcheck bug corpus: DC101
# From: https://github.com/MarWaltz/TUD_RL/issues/21
# Training the LSTM-recursive DQN agent with device set to cuda in the
# config: the agent built the Q-network and moved it to its device, but the
# network's forward made the buffer x_tilde (one 128-wide encoding per time
# step, filled by the inner recurrences) with torch.zeros and no device, on
# the CPU, and pushed it through the outer LSTM: "Input and parameter tensors
# are not at the same device, found input tensor at cpu and parameter tensor
# at cuda:0". Fixed in commit 9e65820 ("bug fix cuda LSTMRecDQN").
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMRecDQN(nn.Module):
    def __init__(self, num_actions, num_obs_OS=7, num_obs_TS=6):
        super().__init__()
        self.num_obs_OS = num_obs_OS
        self.num_obs_TS = num_obs_TS
        self.dense_os = nn.Linear(num_obs_OS, 64)
        self.lstm_inner = nn.LSTM(input_size=num_obs_TS, hidden_size=64, batch_first=True)
        self.lstm_outer = nn.LSTM(input_size=128, hidden_size=64, batch_first=True)
        self.pi_dense1 = nn.Linear(64, 64)
        self.pi_dense2 = nn.Linear(64, num_actions)

    def _inner_rec(self, s):
        x_os = F.relu(self.dense_os(s[:, : self.num_obs_OS]))
        ts = s[:, self.num_obs_OS :].reshape(s.shape[0], -1, self.num_obs_TS)
        _, (h_ts, _) = self.lstm_inner(ts)
        return torch.cat([x_os, h_ts[0]], dim=1)

    def forward(self, s, s_hist, hist_len):
        batch_size, history_length, _ = s_hist.shape
        x_tilde = torch.zeros((batch_size, history_length + 1, 128))  # <- bug
        for t in range(history_length):
            x_tilde[:, t, :] = self._inner_rec(s_hist[:, t, :])
        x_tilde[:, history_length, :] = self._inner_rec(s)
        extracted_mem, _ = self.lstm_outer(x_tilde)
        hidden_mem = extracted_mem[torch.arange(batch_size), hist_len]
        return self.pi_dense2(F.relu(self.pi_dense1(hidden_mem)))


class LSTMRecDQNAgent:
    def __init__(self, c):
        self.device = torch.device(c["device"])
        self.num_actions = c["num_actions"]
        self.DQN = LSTMRecDQN(num_actions=self.num_actions).to(self.device)
        self.optimizer = torch.optim.Adam(self.DQN.parameters(), lr=c["lr"])

    @torch.no_grad()
    def select_action(self, s, s_hist, hist_len):
        s = torch.tensor(s, dtype=torch.float32).unsqueeze(0).to(self.device)
        s_hist = torch.tensor(s_hist, dtype=torch.float32).unsqueeze(0).to(self.device)
        hist_len = torch.tensor([hist_len], device=self.device)
        q = self.DQN(s, s_hist, hist_len)
        return int(torch.argmax(q).item())
