# devcheck bug corpus: DC101
# From: https://github.com/bayesiains/nflows/issues/8
# A conditional diagonal normal base distribution of a flow gets its means
# and log standard deviations from a context network (an nn.Module, moved
# to the GPU with the flow). Its _sample drew the noise with torch.randn and
# no device, on the CPU, and combined it with the means and standard
# deviations on the GPU: "expected device cuda:0 but got device cpu" when
# sampling from a model on the GPU. The fix draws the noise on the device of
# the means.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ConditionalDiagonalNormal(nn.Module):
    def __init__(self, shape, context_encoder):
        super().__init__()
        self._shape = torch.Size(shape)
        self._context_encoder = context_encoder

    def _compute_params(self, context):
        params = self._context_encoder(context)
        split = params.shape[-1] // 2
        means = params[..., :split].reshape(-1, *self._shape)
        log_stds = params[..., split:].reshape(-1, *self._shape)
        return means, log_stds

    def _sample(self, num_samples, context):
        means, log_stds = self._compute_params(context)
        stds = torch.exp(log_stds)
        means = means.repeat_interleave(num_samples, dim=0)
        stds = stds.repeat_interleave(num_samples, dim=0)
        context_size = context.shape[0]
        noise = torch.randn(context_size * num_samples, *self._shape)  # <- bug
        samples = means + stds * noise
        return samples.reshape(context_size, num_samples, *self._shape)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    base = ConditionalDiagonalNormal([2], nn.Linear(3, 4)).to(device)
    context = torch.randn(5, 3, device=device)
    print(base._sample(10, context).shape)


if __name__ == "__main__":
    main()
