# kind: cuda0-vs-cuda1
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/yassouali/pytorch-segmentation/issues/80
# fix: .cuda(device=labels.device) -- make the one-hot buffer on the labels' GPU
"""A dice loss for segmentation that one-hot encodes the targets with
scatter_; the one-hot buffer goes to the default GPU with .cuda() while the
model and labels run on the second GPU."""
import torch
from torch import nn

torch.manual_seed(0)
if torch.cuda.device_count() > 1:
    device = torch.device("cuda:1")
else:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_one_hot(labels, classes):
    one_hot = torch.FloatTensor(labels.size()[0], classes, labels.size()[2], labels.size()[3]).zero_()
    if labels.is_cuda:
        one_hot = one_hot.cuda(device=labels.device)
    target = one_hot.scatter_(1, labels.data, 1)
    return target


class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def forward(self, output, target):
        target = make_one_hot(target.unsqueeze(dim=1), classes=output.size()[1])
        output = output.softmax(dim=1)
        intersection = (output * target).sum()
        return 1 - (2.0 * intersection + self.smooth) / (output.sum() + target.sum() + self.smooth)


model = nn.Conv2d(3, 4, 3, padding=1).to(device)
criterion = DiceLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
images, masks = torch.randn(2, 3, 8, 8), torch.randint(0, 4, (2, 8, 8))
for step in range(3):
    loss = criterion(model(images.to(device)), masks.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("dice loss", round(loss.item(), 4))
