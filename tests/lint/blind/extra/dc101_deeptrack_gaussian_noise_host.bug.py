# devcheck bug corpus: DC101
# From: https://github.com/DeepTrackAI/DeepTrack2/pull/431
# A simulation pipeline's Gaussian noise feature drew its noise with
# `torch.randn(image.shape)`, on the CPU, and added it to the image it was
# given: with images made on the GPU the sum mixed the two devices. The pull
# request adds `device=image.device` to the torch.randn call.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


class Feature:
    def __call__(self, image, **kwargs):
        return self.get(image, **kwargs)


class Gaussian(Feature):
    def __init__(self, mu=0.0, sigma=1.0):
        self.mu = mu
        self.sigma = sigma

    def get(self, image, **kwargs):
        if isinstance(image, np.ndarray):
            return image + np.random.randn(*image.shape) * self.sigma + self.mu
        noise = torch.randn(image.shape) * self.sigma + self.mu  # <- bug
        return image + noise


def simulate(batch, device):
    images = torch.rand(batch, 1, 64, 64, device=device)
    noisy = Gaussian(sigma=0.1).get(images)
    return noisy.clamp(0, 1)
