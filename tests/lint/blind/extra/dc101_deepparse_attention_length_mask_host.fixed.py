# devcheck bug corpus: DC101
# From: https://github.com/GRAAL-Research/deepparse/pull/298
# Fixed: the length mask is built on the device of the module's weights, the
# device the alignment scores are on.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.linear_load = nn.Linear(hidden_size, hidden_size)
        self.weights = nn.Parameter(torch.rand(hidden_size, 1))
        self.lstm = nn.LSTM(hidden_size, hidden_size, batch_first=True)

    def _attention_mechanism_forward(self, decoder_hidden, encoder_outputs, lengths):
        unweighted = torch.tanh(self.linear_load(encoder_outputs) + decoder_hidden.transpose(0, 1))
        alignments_scores = (unweighted @ self.weights).squeeze(-1)
        longest_sequence_length = encoder_outputs.size(1)
        device = self.weights.device
        mask = torch.arange(longest_sequence_length, device=device)[None, :] < torch.tensor(lengths, device=device)[:, None]  # <- fixed
        alignments_scores[~mask] = float("-inf")
        attention_weights = torch.softmax(alignments_scores, dim=1)
        return (attention_weights.unsqueeze(1) @ encoder_outputs), attention_weights

    def forward(self, to_predict, hidden, encoder_outputs, lengths):
        context, weights = self._attention_mechanism_forward(hidden[0], encoder_outputs, lengths)
        output, hidden = self.lstm(to_predict + context, hidden)
        return output, hidden, weights


def predict(device, lengths):
    decoder = Decoder(32).to(device)
    encoder_outputs = torch.rand(len(lengths), max(lengths), 32, device=device)
    hidden = (torch.zeros(1, len(lengths), 32, device=device), torch.zeros(1, len(lengths), 32, device=device))
    to_predict = torch.zeros(len(lengths), 1, 32, device=device)
    return decoder(to_predict, hidden, encoder_outputs, lengths)
