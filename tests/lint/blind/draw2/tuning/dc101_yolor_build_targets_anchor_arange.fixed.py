# devcheck bug corpus: DC101
# From: https://github.com/WongKinYiu/yolor/pull/284
# Fixed: the anchor index tensor is moved to targets.device; the pull request
# also added `j.to(targets.device)` as a statement (its dtype changes to other
# lines are left out here).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def is_parallel(model):
    return type(model) in (nn.parallel.DataParallel, nn.parallel.DistributedDataParallel)


def build_targets(p, targets, model):
    nt = targets.shape[0]
    tcls, tbox, indices, anch = [], [], [], []
    gain = torch.ones(6, device=targets.device)
    off = torch.tensor([[1, 0], [0, 1], [-1, 0], [0, -1]], device=targets.device).float()
    g = 0.5
    multi_gpu = is_parallel(model)
    for i, jj in enumerate(model.module.yolo_layers if multi_gpu else model.yolo_layers):
        anchors = model.module.module_list[jj].anchor_vec if multi_gpu else model.module_list[jj].anchor_vec
        gain[2:] = torch.tensor(p[i].shape)[[3, 2, 3, 2]]
        a, t, offsets = [], targets * gain, 0
        if nt:
            na = anchors.shape[0]
            at = torch.arange(na).view(na, 1).repeat(1, nt).to(targets.device)  # <- fixed
            r = t[None, :, 4:6] / anchors[:, None]
            j = torch.max(r, 1.0 / r).max(2)[0] < model.hyp["anchor_t"]
            j.to(targets.device)  # <- fixed
            a, t = at[j], t.repeat(na, 1, 1)[j]
            gxy = t[:, 2:4]
            z = torch.zeros_like(gxy)
            j, k = ((gxy % 1.0 < g) & (gxy > 1.0)).T
            l, m = ((gxy % 1.0 > (1 - g)) & (gxy < (gain[[2, 3]] - 1.0))).T
            a, t = torch.cat((a, a[j], a[k], a[l], a[m]), 0), torch.cat((t, t[j], t[k], t[l], t[m]), 0)
            offsets = torch.cat((z, z[j] + off[0], z[k] + off[1], z[l] + off[2], z[m] + off[3]), 0) * g
        b, c = t[:, :2].long().T
        gxy = t[:, 2:4]
        gwh = t[:, 4:6]
        gij = (gxy - offsets).long()
        gi, gj = gij.T
        indices.append((b, a, gj.clamp_(0, gain[3] - 1), gi.clamp_(0, gain[2] - 1)))
        tbox.append(torch.cat((gxy - gij, gwh), 1))
        anch.append(anchors[a])
        tcls.append(c)
    return tcls, tbox, indices, anch


def compute_loss(p, targets, model):
    device = targets.device
    lbox = torch.zeros(1, device=device)
    tcls, tbox, indices, anchors = build_targets(p, targets, model)
    for i, pi in enumerate(p):
        b, a, gj, gi = indices[i]
        if b.shape[0]:
            ps = pi[b, a, gj, gi]
            pxy = ps[:, :2].sigmoid() * 2.0 - 0.5
            pwh = (ps[:, 2:4].sigmoid() * 2) ** 2 * anchors[i]
            lbox += (torch.cat((pxy, pwh), 1) - tbox[i]).abs().mean()
    return lbox * targets.shape[0], lbox.detach()


def train_step(model, optimizer, imgs, targets, device):
    imgs = imgs.to(device, non_blocking=True).float() / 255.0
    pred = model(imgs)
    loss, loss_items = compute_loss(pred, targets.to(device), model)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss_items
