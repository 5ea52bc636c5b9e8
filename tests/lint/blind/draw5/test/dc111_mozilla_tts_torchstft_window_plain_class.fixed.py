# devcheck bug corpus: DC111
# From: https://github.com/mozilla/TTS/issues/619
# From: https://github.com/mozilla/TTS/pull/620
# The fix makes TorchSTFT an nn.Module and its window an nn.Parameter with
# requires_grad=False, so criterion_gen.cuda() moves the window too.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torch.nn import functional as F


class TorchSTFT(nn.Module):  # <- fixed
    def __init__(self, n_fft, hop_length, win_length, window="hann_window"):
        super().__init__()  # <- fixed
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        self.window = nn.Parameter(getattr(torch, window)(win_length), requires_grad=False)  # <- fixed

    def __call__(self, x):
        o = torch.stft(x, self.n_fft, self.hop_length, self.win_length, self.window,
                       center=True, pad_mode="reflect", normalized=False, onesided=True, return_complex=False)
        return torch.sqrt(torch.clamp(o[..., 0] ** 2 + o[..., 1] ** 2, min=1e-8))


class STFTLoss(nn.Module):
    def __init__(self, n_fft, hop_length, win_length):
        super().__init__()
        self.stft = TorchSTFT(n_fft, hop_length, win_length)

    def forward(self, y_hat, y):
        y_hat_M = self.stft(y_hat)
        y_M = self.stft(y)
        loss_mag = F.l1_loss(torch.log(y_M), torch.log(y_hat_M))
        loss_sc = torch.norm(y_M - y_hat_M, p="fro") / torch.norm(y_M, p="fro")
        return loss_mag, loss_sc


class MultiScaleSTFTLoss(nn.Module):
    def __init__(self, n_ffts=(1024, 2048, 512), hop_lengths=(120, 240, 50), win_lengths=(600, 1200, 240)):
        super().__init__()
        self.loss_funcs = nn.ModuleList(STFTLoss(n, h, w) for n, h, w in zip(n_ffts, hop_lengths, win_lengths))

    def forward(self, y_hat, y):
        loss_mag, loss_sc = 0, 0
        for f in self.loss_funcs:
            lm, lsc = f(y_hat, y)
            loss_mag += lm
            loss_sc += lsc
        return loss_mag / len(self.loss_funcs), loss_sc / len(self.loss_funcs)


class GeneratorLoss(nn.Module):
    def __init__(self, stft_loss_weight=0.5):
        super().__init__()
        self.stft_loss = MultiScaleSTFTLoss()
        self.stft_loss_weight = stft_loss_weight

    def forward(self, y_hat, y):
        mag, sc = self.stft_loss(y_hat.squeeze(1), y.squeeze(1))
        return self.stft_loss_weight * (mag + sc)


def main(use_cuda=torch.cuda.is_available()):
    model_gen = nn.Sequential(nn.ConvTranspose1d(80, 1, 256, stride=256))
    criterion_gen = GeneratorLoss()
    if use_cuda:
        model_gen.cuda()
        criterion_gen.cuda()
    optimizer_gen = torch.optim.Adam(model_gen.parameters(), lr=1e-4)
    for step in range(3):
        c, y = torch.randn(2, 80, 32), torch.randn(2, 1, 32 * 256)
        if use_cuda:
            c, y = c.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = criterion_gen(model_gen(c), y)
        optimizer_gen.zero_grad()
        loss.backward()
        optimizer_gen.step()


if __name__ == "__main__":
    main()
