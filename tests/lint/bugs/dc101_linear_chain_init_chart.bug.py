# devcheck bug corpus: DC101
# From: https://github.com/harvardnlp/pytorch-struct/issues/111
# A linear-chain CRF makes its initial chart mask with torch.zeros(...) on the
# CPU and combines it with the chart, which is on the GPU when the potentials
# are.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class LinearChain:
    def __init__(self, semiring):
        self.semiring = semiring

    def logpartition(self, log_potentials, lengths):
        batch, N, C, _ = log_potentials.shape
        chart = log_potentials.new_full((batch, N, C, C), -1e9)
        init = torch.zeros(batch, N, C, C).bool()  # <- bug
        init[:, :, range(C), range(C)] = True
        chart = chart.masked_fill(init, 0.0)
        return chart.logsumexp(-1).sum(-1)
