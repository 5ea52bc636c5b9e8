# devcheck bug corpus: DC111
# From: https://github.com/facebookresearch/denoiser/issues/27
# From: https://github.com/facebookresearch/denoiser/commit/767c73fbab3e898cdd39518da75e4f6d1d66ed81
# From: https://github.com/facebookresearch/denoiser/commit/3c28833f8084b2e26a0c0e5146b5f33924819040
# Fine-tuning the denoiser with the multi-resolution STFT loss on a GPU: each
# STFTLoss keeps its analysis window as a plain attribute (self.window =
# torch.hann_window(...)), so it stays on the CPU whatever device the loss
# module is on (and the Solver never moved the loss), so torch.stft gets
# CUDA audio with a CPU window.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def stft_magnitude(x, fft_size, hop_size, win_length, window):
    spec = torch.stft(x, fft_size, hop_size, win_length, window, return_complex=True)
    return torch.clamp(spec.abs() ** 2, min=1e-7).sqrt().transpose(2, 1)


class STFTLoss(nn.Module):
    def __init__(self, fft_size=1024, shift_size=120, win_length=600, window="hann_window"):
        super().__init__()
        self.fft_size = fft_size
        self.shift_size = shift_size
        self.win_length = win_length
        self.window = getattr(torch, window)(win_length)  # <- bug

    def forward(self, x, y):
        x_mag = stft_magnitude(x, self.fft_size, self.shift_size, self.win_length, self.window)
        y_mag = stft_magnitude(y, self.fft_size, self.shift_size, self.win_length, self.window)
        sc_loss = torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")
        mag_loss = F.l1_loss(torch.log(y_mag), torch.log(x_mag))
        return sc_loss, mag_loss


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, fft_sizes=(1024, 2048, 512), hop_sizes=(120, 240, 50), win_lengths=(600, 1200, 240), factor_sc=0.1, factor_mag=0.1):
        super().__init__()
        self.stft_losses = nn.ModuleList([STFTLoss(fs, ss, wl) for fs, ss, wl in zip(fft_sizes, hop_sizes, win_lengths)])
        self.factor_sc = factor_sc
        self.factor_mag = factor_mag

    def forward(self, x, y):
        sc_loss, mag_loss = 0.0, 0.0
        for f in self.stft_losses:
            sc_l, mag_l = f(x, y)
            sc_loss += sc_l
            mag_loss += mag_l
        return self.factor_sc * sc_loss / len(self.stft_losses), self.factor_mag * mag_loss / len(self.stft_losses)


class Solver:
    def __init__(self, model, optimizer, args):
        self.device = args.device
        self.model = model.to(self.device)
        self.optimizer = optimizer
        self.stft_loss = args.stft_loss
        self.mrstftloss = MultiResolutionSTFTLoss(factor_sc=args.stft_sc_factor, factor_mag=args.stft_mag_factor)  # <- bug

    def run_one_epoch(self, batches):
        total = 0.0
        for noisy, clean in batches:
            noisy, clean = noisy.to(self.device), clean.to(self.device)
            estimate = self.model(noisy)
            loss = F.l1_loss(clean, estimate)
            if self.stft_loss:
                sc_loss, mag_loss = self.mrstftloss(estimate.squeeze(1), clean.squeeze(1))
                loss = loss + sc_loss + mag_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(batches)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--stft_loss", action="store_true", default=True)
    parser.add_argument("--stft_sc_factor", type=float, default=0.5)
    parser.add_argument("--stft_mag_factor", type=float, default=0.5)
    args = parser.parse_args()
    model = nn.Sequential(nn.Conv1d(1, 16, 9, padding=4), nn.ReLU(), nn.Conv1d(16, 1, 9, padding=4))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    batches = [(torch.randn(4, 1, 16000), torch.randn(4, 1, 16000)) for _ in range(3)]
    print(Solver(model, optimizer, args).run_one_epoch(batches))
