# devcheck bug corpus: DC101
# From: https://github.com/nii-yamagishilab/project-NN-Pytorch-scripts/pull/6
# The fix calls the window function with dtype= and device= of the generated
# waveform, so each window is made where the waveforms are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as torch_nn
from torch.utils.data import DataLoader, TensorDataset


class Model(torch_nn.Module):
    def __init__(self, in_dim=80, upsample=80):
        super().__init__()
        self.upsample = upsample
        self.cond = torch_nn.Conv1d(in_dim, 64, 3, padding=1)
        self.out = torch_nn.Conv1d(64, 1, 1)
        self.cut = torch_nn.Conv1d(64, 1, 1)

    def forward(self, mel):
        h = torch.tanh(self.cond(mel.transpose(1, 2)))
        h = h.repeat_interleave(self.upsample, dim=-1)
        return [self.out(h).squeeze(1), torch.sigmoid(self.cut(h)).squeeze(1)]


class Loss:
    def __init__(self):
        self.frame_hops = [80, 40, 640]
        self.frame_lens = [320, 80, 1920]
        self.fft_n = [512, 128, 2048]
        self.win = torch.hann_window
        self.amp_floor = 0.00001
        self.loss = torch_nn.MSELoss()
        self.cutoff_w = 0.0

    def compute(self, outputs, target):
        cut_f, output = outputs[1], outputs[0]
        loss = 0
        for frame_shift, frame_len, fft_p in zip(self.frame_hops, self.frame_lens, self.fft_n):
            x_stft = torch.stft(output, fft_p, frame_shift, frame_len,
                                window=self.win(frame_len, dtype=output.dtype, device=output.device),  # <- fixed
                                onesided=True, pad_mode="constant", return_complex=True)
            y_stft = torch.stft(target, fft_p, frame_shift, frame_len,
                                window=self.win(frame_len, dtype=output.dtype, device=output.device),  # <- fixed
                                onesided=True, pad_mode="constant", return_complex=True)
            x_amp = torch.log(x_stft.abs().pow(2) + self.amp_floor)
            y_amp = torch.log(y_stft.abs().pow(2) + self.amp_floor)
            loss += self.loss(x_amp, y_amp)
        loss += self.cutoff_w * self.loss(cut_f, torch.zeros_like(cut_f))
        return loss


def f_run_one_epoch(device, model, loss_wrapper, loader, optimizer):
    model.train()
    for mel, wav in loader:
        mel, wav = mel.to(device), wav.to(device)
        optimizer.zero_grad()
        loss = loss_wrapper.compute(model(mel), wav)
        loss.backward()
        optimizer.step()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    data = TensorDataset(torch.randn(8, 100, 80), torch.randn(8, 8000))
    loader = DataLoader(data, batch_size=1, shuffle=True)
    for epoch in range(2):
        f_run_one_epoch(device, model, Loss(), loader, optimizer)


if __name__ == "__main__":
    main()
