# devcheck bug corpus: DC112
# From: https://github.com/DepthAnything/Depth-Anything-V2/pull/284
# The model's own preprocessing helper picks a device for the input image by
# itself ("cuda" whenever CUDA is there, else "mps", else "cpu") instead of
# the device the caller put the model on: with the model on cuda:1 (or on the
# CPU on a GPU host) infer_image feeds it an image on another device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class DPTHeadLite(nn.Module):
    def __init__(self, embed_dim=384, features=64):
        super().__init__()
        self.proj = nn.Conv2d(embed_dim, features, 1)
        self.out = nn.Sequential(nn.Conv2d(features, features // 2, 3, padding=1), nn.ReLU(), nn.Conv2d(features // 2, 1, 1))

    def forward(self, tokens, patch_h, patch_w):
        x = tokens.transpose(1, 2).reshape(tokens.shape[0], -1, patch_h, patch_w)
        x = F.interpolate(self.proj(x), scale_factor=14, mode="bilinear", align_corners=True)
        return self.out(x)


class DepthAnythingV2(nn.Module):
    def __init__(self, encoder="vits"):
        super().__init__()
        self.pretrained = torch.hub.load("facebookresearch/dinov2", f"dinov2_{encoder}14", pretrained=False)
        self.depth_head = DPTHeadLite(self.pretrained.embed_dim)

    def forward(self, x):
        patch_h, patch_w = x.shape[-2] // 14, x.shape[-1] // 14
        tokens = self.pretrained.get_intermediate_layers(x, 1)[0]
        return F.relu(self.depth_head(tokens, patch_h, patch_w)).squeeze(1)

    @torch.no_grad()
    def infer_image(self, raw_image, input_size=518):
        image, (h, w) = self.image2tensor(raw_image, input_size)
        depth = self.forward(image)
        depth = F.interpolate(depth[:, None], (h, w), mode="bilinear", align_corners=True)[0, 0]
        return depth.cpu().numpy()

    def image2tensor(self, raw_image, input_size=518):
        h, w = raw_image.shape[:2]
        scale = input_size / min(h, w)
        nh, nw = int(round(h * scale / 14)) * 14, int(round(w * scale / 14)) * 14
        image = cv2.cvtColor(raw_image, cv2.COLOR_BGR2RGB) / 255.0
        image = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_CUBIC)
        image = (image - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
        image = torch.from_numpy(image.transpose(2, 0, 1).astype(np.float32)).unsqueeze(0)
        DEVICE = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"  # <- bug
        image = image.to(DEVICE)  # <- bug
        return image, (h, w)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--img-path", type=str, required=True)
    parser.add_argument("--device", type=str, default="cuda:1")
    args = parser.parse_args()
    model = DepthAnythingV2("vits").to(args.device).eval()
    raw_img = cv2.imread(args.img_path)
    depth = model.infer_image(raw_img)
    cv2.imwrite("depth.png", (depth / depth.max() * 255).astype(np.uint8))
