# devcheck bug corpus: DC105
# From: https://github.com/ZQPei/deep_sort_pytorch/issues/51
# From: https://github.com/ZQPei/deep_sort_pytorch/commit/5d43f32eb9eb094af62754275b827f322d7b2f3d
# The fix (commit 5d43f32, "Fixed so cuda falls through") loads the
# checkpoint's storages where they are read, on the CPU (map_location returning
# the storage as it is), and the net is then moved to its device.
# Written for devcheck's tests after the thread; not the project's code.
import cv2
import numpy as np
import torch
import torch.nn as nn
import torchvision.transforms as transforms


class Net(nn.Module):
    def __init__(self, num_classes=751, reid=False):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=1, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, padding=1),
            nn.Conv2d(64, 128, 3, stride=2, padding=1),
            nn.AdaptiveAvgPool2d(1),
        )
        self.reid = reid
        self.classifier = nn.Linear(128, num_classes)

    def forward(self, x):
        x = self.conv(x).flatten(1)
        if self.reid:
            return x / x.norm(p=2, dim=1, keepdim=True)
        return self.classifier(x)


class Extractor(object):
    def __init__(self, model_path, use_cuda=True):
        self.net = Net(reid=True)
        self.device = "cuda" if torch.cuda.is_available() and use_cuda else "cpu"
        state_dict = torch.load(model_path, map_location=lambda storage, loc: storage)["net_dict"]  # <- fixed
        self.net.load_state_dict(state_dict)
        self.net.to(self.device)
        self.size = (64, 128)
        self.norm = transforms.Compose([
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ])

    def _preprocess(self, im_crops):
        def _resize(im, size):
            return cv2.resize(im.astype(np.float32) / 255.0, size)

        return torch.cat([self.norm(_resize(im, self.size)).unsqueeze(0) for im in im_crops], dim=0).float()

    def __call__(self, im_crops):
        im_batch = self._preprocess(im_crops)
        with torch.no_grad():
            features = self.net(im_batch.to(self.device))
        return features.cpu().numpy()


if __name__ == "__main__":
    img = cv2.imread("demo.jpg")[:, :, (2, 1, 0)]
    extractor = Extractor("deep/checkpoint/original_ckpt.t7")
    crops = [img[10:138, 20:84], img[50:178, 100:164]]
    print(extractor(crops).shape)
