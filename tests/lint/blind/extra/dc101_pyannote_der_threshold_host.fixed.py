# devcheck bug corpus: DC101
# From: https://github.com/pyannote/pyannote-audio/pull/961
# Fixed: the threshold tensor is made on the predictions' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def der_components(preds, target, threshold=0.5):
    if isinstance(threshold, float):
        threshold = torch.tensor([threshold], dtype=preds.dtype, device=preds.device)  # <- fixed
    hypothesis = (preds.unsqueeze(-1) > threshold).float()
    target = target.unsqueeze(-1)
    detection_error = torch.sum(hypothesis, 1) - torch.sum(target, 1)
    false_alarm = torch.maximum(detection_error, torch.zeros_like(detection_error))
    missed = torch.maximum(-detection_error, torch.zeros_like(detection_error))
    confusion = torch.sum((hypothesis != target) * hypothesis, 1) - false_alarm
    return false_alarm.sum(), missed.sum(), confusion.sum()


class SegmentationModel(nn.Module):
    def __init__(self, num_speakers=3):
        super().__init__()
        self.rnn = nn.LSTM(40, 64, batch_first=True)
        self.head = nn.Linear(64, num_speakers)

    def forward(self, x):
        out, _ = self.rnn(x)
        return torch.sigmoid(self.head(out))


def validate(model, features, target, device):
    model.eval()
    with torch.no_grad():
        preds = model(features.to(device))
    return der_components(preds, target.to(device))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SegmentationModel().to(device)
    features = torch.randn(2, 100, 40)
    target = (torch.rand(2, 100, 3) > 0.5).float()
    print(validate(model, features, target, device))


if __name__ == "__main__":
    main()
