# devcheck bug corpus: DC101
# From: https://github.com/GRAAL-Research/deepparse/pull/298
# An address parser's attention decoder computes its alignment scores in a
# method of its own (`_attention_mechanism_forward`, called from forward),
# then masks the positions past each sequence's length with a boolean mask
# built from torch.arange and the lengths on the CPU. The scores follow the
# model's device, and `alignments_scores[~mask] = -inf` on the GPU failed:
# attention models only worked on the CPU. The fix builds the mask on the
# device of the module's weights.
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
        mask = torch.arange(longest_sequence_length)[None, :] < torch.tensor(lengths, device="cpu")[:, None]  # <- bug
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
