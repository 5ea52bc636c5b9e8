# devcheck bug corpus: DC113
# From: https://github.com/foolwood/DCFNet_pytorch/issues/23
# DCFNet tracking: the correlation-filter network runs on the GPU and gives
# a response map per search scale; the tracker takes the peak and its index
# with torch.max, copies the peaks to the host for the scale penalty, but
# hands the CUDA index idx[best_scale] to np.unravel_index: "TypeError: can't
# convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host
# memory first", on that line. The thread's answer: convert it with
# .detach().cpu().numpy().
# Written for devcheck's tests after the thread; not the project's code.
import cv2
import numpy as np
import torch
import torch.nn as nn


class TrackerConfig:
    crop_sz = 125
    num_scale = 3
    scale_step = 1.0275
    scale_factor = scale_step ** (np.arange(num_scale) - num_scale / 2)
    scale_penalties = 0.9925 ** (np.abs(np.arange(num_scale) - num_scale / 2))
    net_input_size = [crop_sz, crop_sz]
    net_average_image = np.array([104, 117, 123]).reshape(-1, 1, 1).astype(np.float32)


class DCFNet(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.feature = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1))
        self.model_zf = None

    def update(self, z, lr=1.0):
        zf = self.feature(z)
        self.model_zf = zf if self.model_zf is None else (1 - lr) * self.model_zf + lr * zf

    def forward(self, x):
        return (self.feature(x) * self.model_zf).sum(1, keepdim=True)


def crop(im, pos, sz, out):
    x0, y0 = int(pos[0] - sz[0] / 2), int(pos[1] - sz[1] / 2)
    patch = im[max(y0, 0):max(y0, 0) + int(sz[1]), max(x0, 0):max(x0, 0) + int(sz[0])]
    return cv2.resize(patch, (out, out)).transpose(2, 0, 1).astype(np.float32)


def track(image_files, target_pos, target_sz):
    config = TrackerConfig()
    net = DCFNet(config)
    net.eval().cuda()
    im = cv2.imread(image_files[0])
    target = crop(im, target_pos, target_sz * 3, config.crop_sz) - config.net_average_image
    net.update(torch.Tensor(np.expand_dims(target, axis=0)).cuda())
    patch_crop = np.zeros((config.num_scale, 3, config.crop_sz, config.crop_sz), np.float32)
    for f in range(1, len(image_files)):
        im = cv2.imread(image_files[f])
        for i in range(config.num_scale):
            patch_crop[i, :] = crop(im, target_pos, target_sz * 3 * config.scale_factor[i], config.crop_sz)
        search = patch_crop - config.net_average_image
        with torch.no_grad():
            response = net(torch.Tensor(search).cuda())
        peak, idx = torch.max(response.view(config.num_scale, -1), 1)
        peak = peak.data.cpu().numpy() * config.scale_penalties
        best_scale = np.argmax(peak)
        r_max, c_max = np.unravel_index(idx[best_scale], config.net_input_size)  # <- bug
        if r_max > config.net_input_size[0] / 2:
            r_max = r_max - config.net_input_size[0]
        if c_max > config.net_input_size[1] / 2:
            c_max = c_max - config.net_input_size[1]
        window_sz = target_sz * config.scale_factor[best_scale] * 3
        target_pos = target_pos + np.array([c_max, r_max]) * window_sz / config.net_input_size
    return target_pos
