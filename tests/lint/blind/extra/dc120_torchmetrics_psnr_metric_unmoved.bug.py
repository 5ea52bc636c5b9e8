# devcheck bug corpus: DC120
# From: https://github.com/Lightning-AI/torchmetrics/issues/1047
# A TorchMetrics metric is an nn.Module whose running sums are tensors it
# keeps as its state, made on the CPU when the metric is constructed. The
# user moved the predictions and targets to the GPU and called the metric,
# which was never moved: "Expected all tensors to be on the same device".
# The maintainers' answer: put the metric on the device of its inputs.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torchmetrics import PeakSignalNoiseRatio


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, x):
        return x - self.body(x)


def evaluate(model, noisy, clean, device):
    psnr = PeakSignalNoiseRatio()  # <- bug
    model.eval()
    with torch.no_grad():
        preds = model(noisy.to(device))
    return psnr(preds, clean.to(device))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Denoiser().to(device)
    clean = torch.rand(3, 3, 128, 128)
    noisy = clean + 0.1 * torch.randn_like(clean)
    print(evaluate(model, noisy, clean, device))


if __name__ == "__main__":
    main()
