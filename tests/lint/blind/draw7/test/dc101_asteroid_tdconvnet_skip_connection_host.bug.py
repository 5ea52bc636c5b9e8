# devcheck bug corpus: DC101
# From: https://github.com/asteroid-team/asteroid/issues/300
# Running the WHAM ConvTasNet recipe on GPUs: the TCN masker starts its sum of
# skip connections as torch.tensor([0.0]) on the CPU (a one-element tensor,
# not a scalar), and the first block's skip output on the GPU is added to it.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Conv1DBlock(nn.Module):
    def __init__(self, in_chan, hid_chan, skip_chan, kernel_size, dilation):
        super().__init__()
        padding = (kernel_size - 1) * dilation // 2
        self.shared = nn.Sequential(
            nn.Conv1d(in_chan, hid_chan, 1), nn.PReLU(), nn.GroupNorm(1, hid_chan),
            nn.Conv1d(hid_chan, hid_chan, kernel_size, padding=padding, dilation=dilation, groups=hid_chan),
            nn.PReLU(), nn.GroupNorm(1, hid_chan),
        )
        self.res_conv = nn.Conv1d(hid_chan, in_chan, 1)
        self.skip_conv = nn.Conv1d(hid_chan, skip_chan, 1)

    def forward(self, x):
        h = self.shared(x)
        return self.res_conv(h), self.skip_conv(h)


class TDConvNet(nn.Module):
    def __init__(self, in_chan, n_src, n_blocks=8, n_repeats=3, bn_chan=128, hid_chan=512, skip_chan=128):
        super().__init__()
        self.n_src, self.in_chan = n_src, in_chan
        self.bottleneck = nn.Sequential(nn.GroupNorm(1, in_chan), nn.Conv1d(in_chan, bn_chan, 1))
        self.tcn = nn.ModuleList(
            [Conv1DBlock(bn_chan, hid_chan, skip_chan, 3, 2 ** x) for _ in range(n_repeats) for x in range(n_blocks)]
        )
        self.mask_net = nn.Sequential(nn.PReLU(), nn.Conv1d(skip_chan, n_src * in_chan, 1))

    def forward(self, mixture_w):
        batch, _, n_frames = mixture_w.size()
        output = self.bottleneck(mixture_w)
        skip_connection = torch.tensor([0.0])  # <- bug
        for layer in self.tcn:
            residual, skip = layer(output)
            skip_connection = skip_connection + skip
            output = output + residual
        score = self.mask_net(skip_connection).view(batch, self.n_src, self.in_chan, n_frames)
        return torch.relu(score)


class ConvTasNet(nn.Module):
    def __init__(self, n_src=2, n_filters=512, kernel_size=16):
        super().__init__()
        self.encoder = nn.Conv1d(1, n_filters, kernel_size, stride=kernel_size // 2, bias=False)
        self.masker = TDConvNet(n_filters, n_src)
        self.decoder = nn.ConvTranspose1d(n_filters, 1, kernel_size, stride=kernel_size // 2, bias=False)

    def forward(self, wav):
        tf_rep = torch.relu(self.encoder(wav.unsqueeze(1)))
        masked = self.masker(tf_rep) * tf_rep.unsqueeze(1)
        b, s, f, t = masked.shape
        return self.decoder(masked.view(b * s, f, t)).view(b, s, -1)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ConvTasNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = TensorDataset(torch.randn(32, 8000), torch.randn(32, 2, 8000))
    for mix, sources in DataLoader(data, batch_size=4, shuffle=True):
        mix, sources = mix.to(device), sources.to(device)
        est = model(mix)[..., : sources.shape[-1]]
        loss = (est - sources).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
