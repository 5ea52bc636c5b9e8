# devcheck bug corpus: DC101
# From: https://github.com/IBM/pytorch-seq2seq/pull/123
# The beam-search decoder of a seq2seq library made its position index and the
# initial scores with torch.zeros / torch.LongTensor on the host and combined
# them with the decoder's outputs on the GPU: "TopKDecoder can not run with gpu".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class TopKDecoder(nn.Module):
    def __init__(self, decoder_rnn, k):
        super().__init__()
        self.rnn = decoder_rnn
        self.k = k

    def forward(self, inputs, encoder_hidden, encoder_outputs):
        batch_size = encoder_outputs.size(0)
        pos_index = torch.arange(batch_size) * self.k  # <- bug
        sequence_scores = torch.zeros(batch_size * self.k, 1)  # <- bug
        log_softmax_output, hidden = self.rnn(inputs, encoder_hidden)
        sequence_scores = sequence_scores + F.log_softmax(log_softmax_output, dim=-1)
        scores, candidates = sequence_scores.view(batch_size, -1).topk(self.k, dim=1)
        predecessors = (candidates // 10 + pos_index.expand_as(candidates)).view(-1)
        return scores, predecessors
