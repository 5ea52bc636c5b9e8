# devcheck bug corpus: DC113
# From: https://github.com/brazgardian/M3D-RPN/issues/4
# Fixed (as the thread says): the CUDA index and the CUDA transforms are
# copied to the host with .cpu() before NumPy reads them.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def locate_anchors(anchors, feat_size, stride):
    h, w = feat_size
    shift = np.stack(np.meshgrid(np.arange(w) * stride, np.arange(h) * stride), -1).reshape(-1, 2)
    rois = np.concatenate([np.repeat(shift, len(anchors), 0), np.repeat(shift, len(anchors), 0) + 16,
                           np.tile(np.arange(len(anchors)), len(shift))[:, None]], 1)
    return torch.from_numpy(rois).float()


def compute_targets(gts, rois, anchors):
    transforms = np.zeros((rois.shape[0], 12), dtype=np.float32)
    transforms[:, 4] = (np.random.rand(rois.shape[0]) > 0.9).astype(np.float32)
    return transforms


class RPN3DLoss(nn.Module):
    def __init__(self, conf):
        super().__init__()
        self.anchors = conf.anchors  # a NumPy array, one row per anchor
        self.feat_stride = conf.feat_stride

    def forward(self, cls, bbox_3d, imobjs, feat_size):
        batch_size = cls.shape[0]
        bbox_z3d = bbox_3d[:, :, 2]
        bbox_x_tar = np.zeros(cls.shape[0:2])
        bbox_z3d_tar = np.zeros(cls.shape[0:2])
        rois = locate_anchors(self.anchors, feat_size, self.feat_stride)
        rois = rois.type(torch.cuda.FloatTensor)
        src_anchors = self.anchors[rois[:, 4].type(torch.cuda.LongTensor).cpu(), :]  # <- fixed
        src_anchors = torch.tensor(src_anchors).type(torch.cuda.FloatTensor)
        bbox_z3d_dn = src_anchors[:, 4].unsqueeze(0) + bbox_z3d
        for bind in range(batch_size):
            transforms = compute_targets(imobjs[bind].gts, rois.cpu().numpy(), self.anchors)
            transforms = torch.from_numpy(transforms).cuda()
            bbox_x_tar[bind, :] = transforms.cpu()[:, 0]  # <- fixed
            bbox_z3d_tar[bind, :] = transforms.cpu()[:, 7]  # <- fixed
        target = torch.tensor(bbox_z3d_tar).type(torch.cuda.FloatTensor)
        return torch.abs(bbox_z3d_dn - target).mean()
