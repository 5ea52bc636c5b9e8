# devcheck bug corpus: DC112
# From: https://github.com/feiyuhuahuo/Yolact_minimal/issues/5
# From: https://github.com/feiyuhuahuo/Yolact_minimal/commit/4c8089485eb4f0cb670548354b360170fce623be
# The maintainer's fix ("support CPU now", commit 4c80894): the images are
# moved and the device synchronized only under `if cuda:`, the anchors are
# left where they are made, and load_weights takes the flag and maps the
# weights to the CPU when CUDA is absent.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import glob

import cv2
import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn


class Yolact(nn.Module):
    def __init__(self, num_classes=81, num_anchors=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 64, 7, stride=4, padding=3), nn.ReLU(), nn.Conv2d(64, 256, 3, stride=2, padding=1))
        self.conf = nn.Conv2d(256, num_anchors * num_classes, 3, padding=1)
        self.loc = nn.Conv2d(256, num_anchors * 4, 3, padding=1)
        self.anchors = []

    def load_weights(self, path, cuda):  # <- fixed
        if cuda:  # <- fixed
            state_dict = torch.load(path)  # <- fixed
        else:  # <- fixed
            state_dict = torch.load(path, map_location="cpu")  # <- fixed
        self.load_state_dict(state_dict, strict=False)

    def forward(self, x):
        feat = self.backbone(x)
        if isinstance(self.anchors, list):
            h, w = feat.shape[2:]
            for j in range(h):
                for i in range(w):
                    self.anchors += [(i + 0.5) / w, (j + 0.5) / h, 0.1, 0.1]
            self.anchors = torch.Tensor(self.anchors).view(-1, 4)  # <- fixed
        loc = self.loc(feat).permute(0, 2, 3, 1).reshape(x.size(0), -1, 4)
        conf = self.conf(feat).permute(0, 2, 3, 1).reshape(x.size(0), loc.size(1), -1)
        return loc, conf, self.anchors


parser = argparse.ArgumentParser(description="YOLACT detection")
parser.add_argument("--trained_model", default="yolact_base_54_800000.pth", type=str)
parser.add_argument("--image", default="images", type=str)
args = parser.parse_args()

with torch.no_grad():
    cuda = torch.cuda.is_available()
    if cuda:
        cudnn.benchmark = True
        torch.set_default_tensor_type("torch.cuda.FloatTensor")
    else:
        torch.set_default_tensor_type("torch.FloatTensor")

    net = Yolact()
    net.load_weights("weights/" + args.trained_model, cuda)  # <- fixed
    net.eval()
    if cuda:
        net = net.cuda()

    for one_img in glob.glob(args.image + "/*.jpg"):
        img_origin = torch.from_numpy(cv2.imread(one_img)).float()  # <- fixed
        if cuda:  # <- fixed
            img_origin = img_origin.cuda()  # <- fixed
        img_trans = img_origin.permute(2, 0, 1).unsqueeze(0) / 255.0
        loc, conf, anchors = net(img_trans)
        scores, classes = conf.softmax(-1)[0, :, 1:].max(dim=1)
        keep = scores > 0.3
        if cuda:  # <- fixed
            torch.cuda.synchronize()  # <- fixed
        print(one_img, int(keep.sum()), anchors[: loc.size(1)][keep].shape)
