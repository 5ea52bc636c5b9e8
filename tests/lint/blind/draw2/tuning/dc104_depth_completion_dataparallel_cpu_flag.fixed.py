# devcheck bug corpus: DC104
# From: https://github.com/fangchangma/self-supervised-depth-completion/pull/42
# Fixed: the network is wrapped in DataParallel only when CUDA is used
# (if cuda:); with --cpu it runs unwrapped on the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torch.nn as nn
import torch.utils.data

parser = argparse.ArgumentParser(description="Sparse-to-Dense")
parser.add_argument("-e", "--evaluate", default="", type=str, metavar="PATH")
parser.add_argument("--cpu", action="store_true", help="run on cpu")
parser.add_argument("--lr", type=float, default=1e-5)
args = parser.parse_args()

cuda = torch.cuda.is_available() and not args.cpu
if cuda:
    import torch.backends.cudnn as cudnn
    cudnn.benchmark = True
    device = torch.device("cuda")
else:
    device = torch.device("cpu")
print("=> using '{}' for computation.".format(device))


class DepthCompletionNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_d = nn.Conv2d(1, 32, 3, padding=1)
        self.conv_rgb = nn.Conv2d(3, 32, 3, padding=1)
        self.head = nn.Conv2d(64, 1, 3, padding=1)

    def forward(self, x):
        feats = torch.cat((self.conv_d(x["d"]), self.conv_rgb(x["rgb"])), dim=1)
        return self.head(torch.relu(feats))


def iterate(loader, model):
    model.eval()
    for batch_data in loader:
        batch_data = {key: val.to(device) for key, val in batch_data.items() if val is not None}
        with torch.no_grad():
            pred = model(batch_data)
        print(pred.shape)


def main():
    checkpoint = None
    if args.evaluate and os.path.isfile(args.evaluate):
        checkpoint = torch.load(args.evaluate, map_location=device)
    model = DepthCompletionNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    if checkpoint is not None:
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
    if cuda:  # <- fixed
        model = torch.nn.DataParallel(model)  # <- fixed
    val_loader = torch.utils.data.DataLoader([], batch_size=1, shuffle=False, num_workers=2, pin_memory=True)
    iterate(val_loader, model)


if __name__ == "__main__":
    main()
