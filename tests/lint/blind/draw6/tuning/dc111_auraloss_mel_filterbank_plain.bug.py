# devcheck bug corpus: DC111
# From: https://github.com/csteinmetz1/auraloss/issues/34
# From: https://github.com/csteinmetz1/auraloss/commit/4e8c4eef9a408b1a16845863fc0bc86edb4c7bce
# STFTLoss keeps its mel (or chroma) filterbank, built with librosa, as a
# plain tensor attribute: loss.to("cuda") leaves it on the CPU (only the
# optional device= argument moved it), so the mel projection of the CUDA
# spectrogram fails.
# Written for devcheck's tests after the thread; not the project's code.
import librosa.filters
import torch


class STFTLoss(torch.nn.Module):
    def __init__(self, fft_size=1024, hop_size=256, win_length=1024, sample_rate=None,
                 scale=None, n_bins=None, eps=1e-8, device=None):
        super().__init__()
        self.fft_size = fft_size
        self.hop_size = hop_size
        self.win_length = win_length
        self.window = torch.hann_window(win_length)
        self.scale = scale
        self.eps = eps
        self.device = device
        if scale is not None:
            if scale == "mel":
                fb = librosa.filters.mel(sr=sample_rate, n_fft=fft_size, n_mels=n_bins)
                self.fb = torch.tensor(fb).unsqueeze(0)  # <- bug
            elif scale == "chroma":
                fb = librosa.filters.chroma(sr=sample_rate, n_fft=fft_size, n_chroma=n_bins)
                self.fb = torch.tensor(fb).unsqueeze(0)  # <- bug
            else:
                raise ValueError(f"Invalid scale: {scale}")
        if scale is not None and device is not None:
            self.fb = self.fb.to(self.device)

    def stft(self, x):
        x_stft = torch.stft(x, self.fft_size, self.hop_size, self.win_length, self.window,
                            return_complex=True)
        return torch.sqrt(torch.clamp(x_stft.real ** 2 + x_stft.imag ** 2, min=self.eps))

    def forward(self, x, y):
        self.window = self.window.to(x.device)
        x_mag = self.stft(x.view(-1, x.size(-1)))
        y_mag = self.stft(y.view(-1, y.size(-1)))
        if self.scale is not None:
            x_mag = torch.matmul(self.fb, x_mag)
            y_mag = torch.matmul(self.fb, y_mag)
        sc = torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")
        log_mag = torch.nn.functional.l1_loss(torch.log(x_mag), torch.log(y_mag))
        return sc + log_mag


class MultiResolutionSTFTLoss(torch.nn.Module):
    def __init__(self, fft_sizes=(1024, 2048, 512), hop_sizes=(120, 240, 50),
                 win_lengths=(600, 1200, 240), **kwargs):
        super().__init__()
        self.stft_losses = torch.nn.ModuleList(
            [STFTLoss(fs, ss, wl, **kwargs) for fs, ss, wl in zip(fft_sizes, hop_sizes, win_lengths)]
        )

    def forward(self, x, y):
        return sum(f(x, y) for f in self.stft_losses) / len(self.stft_losses)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loss_fn = MultiResolutionSTFTLoss(scale="mel", n_bins=128, sample_rate=44100).to(device)
    pred = torch.randn(4, 1, 44100, device=device)
    target = torch.randn(4, 1, 44100, device=device)
    print(loss_fn(pred, target))
