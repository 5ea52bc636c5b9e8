# devcheck bug corpus: DC120
# From: https://github.com/matssteinweg/PIXOR/issues/6
# The evaluation script of a bird's-eye-view detector chose the device in its
# main block, built the network, loaded its weights with map_location=device
# and handed it to `evaluate_model`, which moved each batch to the device:
# the network itself was never moved (the script's `.to(device)` sat on the
# dictionary of results evaluate_model returned), and the first batch failed
# with "Input type (torch.cuda.FloatTensor) and weight type
# (torch.FloatTensor) should be the same".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class PIXOR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(36, 32, 3, padding=1), nn.ReLU())
        self.header = nn.Conv2d(32, 7, 3, padding=1)

    def forward(self, x):
        return self.header(self.backbone(x))


def evaluate_model(model, data_loader, device, threshold=0.5):
    model.eval()
    detections = []
    with torch.no_grad():
        for batch_data, _ in data_loader:
            batch_data = batch_data.to(device)
            batch_predictions = model(batch_data)  # <- bug
            scores = torch.sigmoid(batch_predictions[:, 0])
            detections.append((scores > threshold).sum().item())
    return {"detections": detections}


def main(data_loader):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    pixor = PIXOR()
    pixor.load_state_dict(torch.load("models/PIXOR.pt", map_location=device))
    eval_dict = evaluate_model(pixor, data_loader, device)  # <- bug
    print(eval_dict)
