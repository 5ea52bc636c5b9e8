# devcheck bug corpus: DC112
# From: https://github.com/open-mmlab/mmdeploy/pull/2715
# Fixed: the grid priors are made on the mask features' device,
# single_level_grid_priors(hw, level_idx=0, device=mask_feat.device).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from mmdet.models.task_modules.prior_generators import MlvlPointGenerator


class RTMDetInsHead(nn.Module):
    def __init__(self, num_params=169, strides=(8, 16, 32)):
        super().__init__()
        self.prior_generator = MlvlPointGenerator(strides, offset=0)
        self.weight_nums = [80, 64, 8]
        self.bias_nums = [8, 8, 1]
        self.kernel_head = nn.Linear(256, num_params)


def _parse_dynamic_params(self, flatten_kernels):
    batch_size, n_inst = flatten_kernels.shape[:2]
    splits = list(torch.split(flatten_kernels, self.weight_nums + self.bias_nums, dim=2))
    n = len(self.weight_nums)
    weights = [w.reshape(batch_size, n_inst, -1, w.shape[2] // b) for w, b in zip(splits[:n], self.bias_nums)]
    return weights, splits[n:]


def _mask_predict_by_feat_single(self, mask_feat, kernels, priors):
    num_inst = priors.shape[1]
    batch_size = priors.shape[0]
    hw = mask_feat.size()[-2:]
    coord = self.prior_generator.single_level_grid_priors(hw, level_idx=0, device=mask_feat.device)  # <- fixed
    coord = coord.unsqueeze(0).unsqueeze(0).repeat(batch_size, 1, 1, 1)
    priors = priors.unsqueeze(2)
    relative_coord = (priors[..., :2] - coord).permute(0, 1, 3, 2) / (priors[..., 2:3] * 8)
    relative_coord = relative_coord.reshape(batch_size, num_inst, 2, hw[0], hw[1])
    mask_feat = torch.cat([relative_coord, mask_feat.unsqueeze(1).repeat(1, num_inst, 1, 1, 1)], dim=2)
    weights, biases = _parse_dynamic_params(self, kernels)
    x = mask_feat.flatten(0, 1).flatten(2)
    for i, (weight, bias) in enumerate(zip(weights, biases)):
        x = torch.bmm(weight.flatten(0, 1), x) + bias.flatten(0, 1).unsqueeze(2)
        if i < len(weights) - 1:
            x = x.clamp_(min=0)
    return x.reshape(batch_size, num_inst, hw[0], hw[1])


if __name__ == "__main__":
    head = RTMDetInsHead().eval()
    mask_feat = torch.rand(1, 8, 80, 80)
    kernels = torch.rand(1, 10, 169)
    priors = torch.rand(1, 10, 4) * 640
    print(_mask_predict_by_feat_single(head, mask_feat, kernels, priors).shape)
