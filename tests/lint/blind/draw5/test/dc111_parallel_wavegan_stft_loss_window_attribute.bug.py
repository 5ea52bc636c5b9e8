# devcheck bug corpus: DC111
# From: https://github.com/kan-bayashi/ParallelWaveGAN/issues/223
# From: https://github.com/kan-bayashi/ParallelWaveGAN/commit/a4f8c0960d016ecba6b29522b518ee759373a9ca
# Vocoder training: the multi-resolution STFT criterion is built and moved
# with .to(device) in main(), but each STFTLoss keeps its window as a plain
# attribute (self.window = torch.hann_window(...)), which .to() does not
# move; the generator's CUDA output meets the CPU window in torch.stft.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


def stft(x, fft_size, hop_size, win_length, window):
    x_stft = torch.stft(x, fft_size, hop_size, win_length, window, return_complex=False)
    real, imag = x_stft[..., 0], x_stft[..., 1]
    return torch.sqrt(torch.clamp(real ** 2 + imag ** 2, min=1e-7)).transpose(2, 1)


class STFTLoss(nn.Module):
    def __init__(self, fft_size=1024, shift_size=120, win_length=600, window="hann_window"):
        super().__init__()
        self.fft_size = fft_size
        self.shift_size = shift_size
        self.win_length = win_length
        self.window = getattr(torch, window)(win_length)  # <- bug

    def forward(self, x, y):
        x_mag = stft(x, self.fft_size, self.shift_size, self.win_length, self.window)
        y_mag = stft(y, self.fft_size, self.shift_size, self.win_length, self.window)
        sc = torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")
        mag = F.l1_loss(torch.log(y_mag), torch.log(x_mag))
        return sc, mag


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, fft_sizes=(1024, 2048, 512), hop_sizes=(120, 240, 50), win_lengths=(600, 1200, 240)):
        super().__init__()
        self.stft_losses = nn.ModuleList()
        for fs, ss, wl in zip(fft_sizes, hop_sizes, win_lengths):
            self.stft_losses += [STFTLoss(fs, ss, wl)]

    def forward(self, x, y):
        sc_loss, mag_loss = 0.0, 0.0
        for f in self.stft_losses:
            sc_l, mag_l = f(x, y)
            sc_loss += sc_l
            mag_loss += mag_l
        return sc_loss / len(self.stft_losses), mag_loss / len(self.stft_losses)


class Trainer:
    def __init__(self, model, criterion, optimizer, device):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.device = device

    def train_step(self, batch):
        x, y = batch
        x, y = x.to(self.device), y.to(self.device)
        y_ = self.model(x)
        sc_loss, mag_loss = self.criterion["stft"](y_.squeeze(1), y.squeeze(1))
        loss = sc_loss + mag_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    generator = nn.Sequential(nn.ConvTranspose1d(80, 1, 256, stride=256)).to(device)
    criterion = {
        "stft": MultiResolutionSTFTLoss().to(device),
        "mse": nn.MSELoss().to(device),
    }
    optimizer = torch.optim.Adam(generator.parameters(), lr=1e-4)
    trainer = Trainer(generator, criterion, optimizer, device)
    for step in range(5):
        batch = (torch.randn(2, 80, 40), torch.randn(2, 1, 40 * 256))
        print(trainer.train_step(batch))


if __name__ == "__main__":
    main()
