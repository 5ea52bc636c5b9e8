# devcheck bug corpus: DC120
# From: https://github.com/matssteinweg/PIXOR/issues/6
# Fixed: main moves the network to the device before handing it to
# evaluate_model.
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
            batch_predictions = model(batch_data)  # <- fixed
            scores = torch.sigmoid(batch_predictions[:, 0])
            detections.append((scores > threshold).sum().item())
    return {"detections": detections}


def main(data_loader):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    pixor = PIXOR()
    pixor.load_state_dict(torch.load("models/PIXOR.pt", map_location=device))
    pixor.to(device)  # <- fixed
    eval_dict = evaluate_model(pixor, data_loader, device)  # <- fixed
    print(eval_dict)
