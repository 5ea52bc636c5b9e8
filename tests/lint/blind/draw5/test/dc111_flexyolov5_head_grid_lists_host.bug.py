# devcheck bug corpus: DC111
# From: https://github.com/Bobo-y/flexible-yolov5/issues/111
# The YOLO head keeps its inference grids in plain Python lists of tensors.
# A checkpoint saved after an evaluation holds grids of the saved size; eval
# loads it on the CPU and moves the model to the GPU, which moves parameters
# and buffers but not those lists, and with the same image size the head
# never rebuilds them: the CPU grids meet the GPU outputs.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class YOLOHead(nn.Module):
    def __init__(self, nc, anchors, ch=(256, 512, 1024), stride=(8.0, 16.0, 32.0)):
        super().__init__()
        self.nc, self.no = nc, nc + 5
        self.nl, self.na = len(anchors), len(anchors[0]) // 2
        self.grid = [torch.zeros(1)] * self.nl  # <- bug
        self.anchor_grid = [torch.zeros(1)] * self.nl  # <- bug
        self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2))
        self.register_buffer("stride", torch.tensor(stride))
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in ch)

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
                y = x[i].sigmoid()
                y[..., 0:2] = (y[..., 0:2] * 2 + self.grid[i]) * self.stride[i]
                y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]
                z.append(y.view(bs, -1, self.no))
        return x if self.training else (torch.cat(z, 1), x)

    def _make_grid(self, nx, ny, i):
        d, t = self.anchors[i].device, self.anchors[i].dtype
        yv, xv = torch.meshgrid(torch.arange(ny, device=d, dtype=t),
                                torch.arange(nx, device=d, dtype=t), indexing="ij")
        shape = 1, self.na, ny, nx, 2
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid


class Model(nn.Module):
    def __init__(self, nc=80, anchors=((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119), (116, 90, 156, 198, 373, 326))):
        super().__init__()
        self.backbone = nn.ModuleList(
            nn.Conv2d(3 if i == 0 else c // 2, c, 3, stride=8 if i == 0 else 2, padding=1)
            for i, c in enumerate((256, 512, 1024))
        )
        self.detection = YOLOHead(nc, anchors)

    def forward(self, x):
        feats = []
        for layer in self.backbone:
            x = layer(x)
            feats.append(x)
        return self.detection(feats)


def attempt_load(weights):
    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    return ckpt["model"].float().eval()


def evaluate(weights, dataloader):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = attempt_load(weights).to(device)
    results = []
    with torch.no_grad():
        for img, targets in dataloader:
            img = img.to(device).float() / 255.0
            out, _ = model(img)
            results.append(out[..., 4].max().item())
    return results
