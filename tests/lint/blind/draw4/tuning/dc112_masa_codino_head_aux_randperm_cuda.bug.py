# devcheck bug corpus: DC112
# From: https://github.com/siyuanliii/masa/pull/21
# Co-DINO's head gathers auxiliary positive queries per image; everything it builds
# follows the boxes' device (coord.new_tensor, .to(coord.device)), except the random
# subsets of positive and negative indices, which are moved with a bare .cuda(): on a
# CPU-only run (or another GPU) that line fails or picks the wrong device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def bbox_xyxy_to_cxcywh(b):
    x1, y1, x2, y2 = b.unbind(-1)
    return torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], -1)


class CoDINOHead(nn.Module):
    def __init__(self, num_classes=80, embed_dims=256, max_pos_coords=300):
        super().__init__()
        self.num_classes = num_classes
        self.max_pos_coords = max_pos_coords
        self.query_proj = nn.Linear(embed_dims, embed_dims)

    def get_aux_samples(self, coords, labels, targets, feats, img_metas):
        bs = len(coords)
        max_num = 9
        for label in labels:
            pos = ((label >= 0) & (label < self.num_classes)).nonzero().squeeze(1)
            max_num = max(max_num, len(pos))
        max_num = min(self.max_pos_coords, max_num)
        aux_coords, aux_labels, aux_targets, aux_feats = [], [], [], []
        for i in range(bs):
            coord, label, target, feat_i = coords[i], labels[i], targets[i], feats[i]
            img_h, img_w = img_metas[i]["img_shape"]
            factor = coord.new_tensor([img_w, img_h, img_w, img_h]).unsqueeze(0)
            pos_inds = ((label >= 0) & (label < self.num_classes)).nonzero().squeeze(1)
            neg_inds = (label == self.num_classes).nonzero().squeeze(1)
            if pos_inds.shape[0] > max_num:
                indices = torch.randperm(pos_inds.shape[0])[:max_num].cuda()  # <- bug
                pos_inds = pos_inds[indices]
            c = bbox_xyxy_to_cxcywh(coord[pos_inds] / factor)
            l = label[pos_inds]
            t = bbox_xyxy_to_cxcywh(target[pos_inds] / factor)
            f = feat_i[pos_inds]
            if c.shape[0] < max_num:
                pad = max_num - c.shape[0]
                indices = torch.randperm(neg_inds.shape[0])[:pad].cuda()  # <- bug
                neg = neg_inds[indices]
                c = torch.cat((c, bbox_xyxy_to_cxcywh(coord[neg] / factor)), 0)
                l = torch.cat((l, label[neg]), 0)
                t = torch.cat((t, bbox_xyxy_to_cxcywh(target[neg] / factor)), 0)
                f = torch.cat((f, feat_i[neg]), 0)
            aux_coords.append(c.unsqueeze(0))
            aux_labels.append(l.unsqueeze(0))
            aux_targets.append(t.unsqueeze(0))
            aux_feats.append(self.query_proj(f).unsqueeze(0))
        return torch.cat(aux_coords), torch.cat(aux_labels), torch.cat(aux_targets), torch.cat(aux_feats)


if __name__ == "__main__":
    device = torch.device("cpu")
    head = CoDINOHead().to(device)
    n = 900
    coords = [torch.rand(n, 4, device=device) * 100 for _ in range(2)]
    labels = [torch.randint(0, 81, (n,), device=device) for _ in range(2)]
    targets = [torch.rand(n, 4, device=device) * 100 for _ in range(2)]
    feats = [torch.randn(n, 256, device=device) for _ in range(2)]
    metas = [{"img_shape": (640, 640)}, {"img_shape": (640, 640)}]
    print([x.shape for x in head.get_aux_samples(coords, labels, targets, feats, metas)])
