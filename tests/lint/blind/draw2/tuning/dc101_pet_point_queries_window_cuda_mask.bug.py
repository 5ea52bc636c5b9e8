# devcheck bug corpus: DC101
# From: https://github.com/cxliu0/PET/issues/4
# PET (point query transformer for crowd counting) builds its point queries
# at inference from torch.arange grids, on the CPU, windows them, and keeps
# the windows where the split map (the model's output, on the GPU) asks for
# queries. Indexing the CPU point-query windows with that GPU mask failed at
# the first evaluation: "indices should be either on cpu or on the same
# device as the indexed tensor (cpu)", at `points_queries_win[:, v_idx]`.
# The answer in the thread: `v_idx = v_idx.cpu()` before that line.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def window_partition(x, window_size_h, window_size_w):
    b, c, h, w = x.shape
    x = x.view(b, c, h // window_size_h, window_size_h, w // window_size_w, window_size_w)
    return x.permute(3, 5, 0, 2, 4, 1).reshape(window_size_h * window_size_w, -1, c)


class PointQueryHead(nn.Module):
    def __init__(self, channels, stride=8):
        super().__init__()
        self.pq_stride = stride
        self.split_head = nn.Conv2d(channels, 1, 1)

    def points_queries_embed_inference(self, images, stride, src, **kwargs):
        dense_input_embed = kwargs["dense_input_embed"]
        bs, c = dense_input_embed.shape[:2]
        image_shape = torch.tensor(images.shape[2:])
        shape = (image_shape + stride // 2 - 1) // stride
        shift_x = ((torch.arange(0, shape[1]) + 0.5) * stride).long()  # <- bug
        shift_y = ((torch.arange(0, shape[0]) + 0.5) * stride).long()  # <- bug
        shift_y, shift_x = torch.meshgrid(shift_y, shift_x, indexing="ij")
        points_queries = torch.vstack([shift_y.flatten(), shift_x.flatten()]).permute(1, 0)
        h, w = shift_x.shape
        query_embed = dense_input_embed[:, :, points_queries[:, 0], points_queries[:, 1]].reshape(bs, c, h, w)
        query_feats = src[:, :, points_queries[:, 0] // stride, points_queries[:, 1] // stride].reshape(bs, c, h, w)
        points_queries = points_queries.reshape(h, w, 2).permute(2, 0, 1).unsqueeze(0)
        win_w, win_h = kwargs["dec_win_size"]
        query_embed_win = window_partition(query_embed, win_h, win_w)
        points_queries_win = window_partition(points_queries, win_h, win_w)
        query_feats_win = window_partition(query_feats, win_h, win_w)
        div_win = window_partition(kwargs["div"].unsqueeze(1), win_h, win_w)
        v_idx = (div_win > 0.5).sum(dim=0)[:, 0] > 0
        query_embed_win = query_embed_win[:, v_idx]
        query_feats_win = query_feats_win[:, v_idx]
        points_queries_win = points_queries_win[:, v_idx].reshape(-1, 2)  # <- bug
        return query_embed_win, points_queries_win, query_feats_win, v_idx

    def forward(self, images, src, dense_input_embed):
        split_map = torch.sigmoid(self.split_head(src)).squeeze(1)
        return self.points_queries_embed_inference(
            images, self.pq_stride, src, dense_input_embed=dense_input_embed, dec_win_size=(4, 2), div=split_map
        )


@torch.no_grad()
def evaluate(head, backbone, pos_embed, data_loader, device):
    head.eval()
    for images, _ in data_loader:
        images = images.to(device)
        src = backbone(images)
        head(images, src, pos_embed(images))


def main(backbone, pos_embed, data_loader):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    head = PointQueryHead(256).to(device)
    backbone.to(device)
    evaluate(head, backbone, pos_embed, data_loader, device)
