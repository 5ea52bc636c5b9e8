# devcheck bug corpus: DC118
# From: https://github.com/cvg/LightGlue/pull/148
# LightGlue's match_pair helper runs the extractor and matcher on the GPU and
# then moves every output to the target device (the CPU by default) through
# batch_to_device, whose copies are non_blocking=True; the caller reads the
# keypoints and matches at once, with nothing synchronizing, and on some
# machines gets all-zero tensors.
# Written for devcheck's tests after the thread; not the project's code.
import collections.abc

import numpy as np
import torch

from lightglue import LightGlue, SuperPoint
from lightglue.utils import load_image


def map_tensor(input_, func):
    if isinstance(input_, (str, bytes)):
        return input_
    if isinstance(input_, collections.abc.Mapping):
        return {k: map_tensor(v, func) for k, v in input_.items()}
    if isinstance(input_, collections.abc.Sequence):
        return [map_tensor(v, func) for v in input_]
    if isinstance(input_, torch.Tensor):
        return func(input_)
    return input_


def batch_to_device(batch, device="cpu", non_blocking=True):
    def _func(tensor):
        return tensor.to(device=device, non_blocking=non_blocking).detach()  # <- bug

    return map_tensor(batch, _func)


def rbd(data):
    return {k: v[0] if isinstance(v, (torch.Tensor, np.ndarray, list)) else v for k, v in data.items()}


def match_pair(extractor, matcher, image0, image1, device="cpu", **preprocess):
    feats0 = extractor.extract(image0, **preprocess)
    feats1 = extractor.extract(image1, **preprocess)
    matches01 = matcher({"image0": feats0, "image1": feats1})
    data = [feats0, feats1, matches01]
    feats0, feats1, matches01 = [batch_to_device(rbd(x), device) for x in data]
    return feats0, feats1, matches01


if __name__ == "__main__":
    extractor = SuperPoint(max_num_keypoints=2048).eval().cuda()
    matcher = LightGlue(features="superpoint").eval().cuda()
    image0 = load_image("assets/DSC_0411.JPG").cuda()
    image1 = load_image("assets/DSC_0410.JPG").cuda()
    feats0, feats1, matches01 = match_pair(extractor, matcher, image0, image1)
    matches = matches01["matches"]
    points0 = feats0["keypoints"][matches[..., 0]]
    points1 = feats1["keypoints"][matches[..., 1]]
    print(len(matches), np.abs(points0.numpy() - points1.numpy()).mean())
