# devcheck bug corpus: DC111
# From: https://github.com/lyuwenyu/RT-DETR/issues/677
# From: https://github.com/lyuwenyu/RT-DETR/commit/f64c0e10d2dbc1a80db958275362f4e28fedf040
# The fix (PR 679, commit f64c0e1) registers the embedding as a
# non-persistent buffer, so it follows .cuda()/.half() and stays out of the
# state dict, and forward uses it as it is, without a copy per call.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class HybridEncoder(nn.Module):
    def __init__(self, in_channels=(512, 1024, 2048), feat_strides=(8, 16, 32), hidden_dim=256,
                 nhead=8, use_encoder_idx=(2,), pe_temperature=10000.0, eval_spatial_size=(640, 640)):
        super().__init__()
        self.feat_strides = feat_strides
        self.hidden_dim = hidden_dim
        self.use_encoder_idx = use_encoder_idx
        self.pe_temperature = pe_temperature
        self.eval_spatial_size = eval_spatial_size
        self.input_proj = nn.ModuleList(
            nn.Sequential(nn.Conv2d(c, hidden_dim, 1, bias=False), nn.BatchNorm2d(hidden_dim)) for c in in_channels
        )
        self.encoder = nn.ModuleList(
            nn.TransformerEncoderLayer(hidden_dim, nhead, 1024, batch_first=True) for _ in use_encoder_idx
        )
        self._reset_parameters()

    def _reset_parameters(self):
        if self.eval_spatial_size:
            for idx in self.use_encoder_idx:
                stride = self.feat_strides[idx]
                pos_embed = self.build_2d_sincos_position_embedding(
                    self.eval_spatial_size[1] // stride, self.eval_spatial_size[0] // stride,
                    self.hidden_dim, self.pe_temperature)
                self.register_buffer(f"pos_embed{idx}", pos_embed, persistent=False)  # <- fixed

    @staticmethod
    def build_2d_sincos_position_embedding(w, h, embed_dim=256, temperature=10000.0):
        grid_w, grid_h = torch.meshgrid(
            torch.arange(int(w), dtype=torch.float32), torch.arange(int(h), dtype=torch.float32), indexing="ij")
        pos_dim = embed_dim // 4
        omega = 1.0 / (temperature ** (torch.arange(pos_dim, dtype=torch.float32) / pos_dim))
        out_w = grid_w.flatten()[..., None] @ omega[None]
        out_h = grid_h.flatten()[..., None] @ omega[None]
        return torch.concat([out_w.sin(), out_w.cos(), out_h.sin(), out_h.cos()], dim=1)[None, :, :]

    def forward(self, feats):
        proj_feats = [self.input_proj[i](feat) for i, feat in enumerate(feats)]
        for i, enc_ind in enumerate(self.use_encoder_idx):
            h, w = proj_feats[enc_ind].shape[2:]
            src_flatten = proj_feats[enc_ind].flatten(2).permute(0, 2, 1)
            if self.training or self.eval_spatial_size is None:
                pos_embed = self.build_2d_sincos_position_embedding(
                    w, h, self.hidden_dim, self.pe_temperature).to(src_flatten.device)
            else:
                pos_embed = getattr(self, f"pos_embed{enc_ind}", None)  # <- fixed
            memory = self.encoder[i](src_flatten + pos_embed)
            proj_feats[enc_ind] = memory.permute(0, 2, 1).reshape(-1, self.hidden_dim, h, w).contiguous()
        top = proj_feats[-1]
        return [top] + [F.interpolate(top, size=f.shape[2:]) + f for f in proj_feats[:-1]]


if __name__ == "__main__":
    encoder = HybridEncoder().cuda().half().eval()
    feats = [torch.randn(1, c, 640 // s, 640 // s, device="cuda", dtype=torch.half)
             for c, s in zip((512, 1024, 2048), (8, 16, 32))]
    with torch.no_grad():
        outs = encoder(feats)
    print([o.shape for o in outs])
