# devcheck bug corpus: DC101
# From: https://github.com/seasonSH/LiftedGAN/pull/1
# The PyTorch3D renderer keeps its device from the config and makes the camera
# intrinsics there, but builds the camera's rotation with look_at_rotation(...)
# without device=: R is made on the CPU and handed to a camera on the GPU, and
# rasterizing fails with tensors on cuda:0 and cpu.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
from pytorch3d.renderer import (
    BlendParams,
    MeshRasterizer,
    OpenGLPerspectiveCameras,
    RasterizationSettings,
    TexturesVertex,
    hard_rgb_blend,
    look_at_rotation,
)
from pytorch3d.structures import Meshes


class Renderer(torch.nn.Module):
    def __init__(self, **cfgs):
        super().__init__()
        self.device = cfgs.get("device", "cpu")
        self.image_size = cfgs.get("image_size", 64)
        self.fov = cfgs.get("fov", 10)
        f = (self.image_size - 1) / 2 / math.tan(self.fov / 2 * math.pi / 180)
        c = (self.image_size - 1) / 2
        K = torch.FloatTensor([[f, 0.0, c], [0.0, f, c], [0.0, 0.0, 1.0]]).to(self.device)
        self.inv_K = torch.inverse(K).unsqueeze(0)
        R = look_at_rotation(((0, 0, 0),), at=((0, 0, 1),), up=((0, -1, 0),))  # <- bug
        cameras = OpenGLPerspectiveCameras(device=self.device, fov=self.fov, R=R)
        settings = RasterizationSettings(image_size=self.image_size, blur_radius=0.0, faces_per_pixel=1)
        self.rasterizer = MeshRasterizer(cameras=cameras, raster_settings=settings)

    def depth_to_3d_grid(self, depth):
        b, h, w = depth.shape
        ys, xs = torch.meshgrid(torch.arange(h, device=depth.device), torch.arange(w, device=depth.device), indexing="ij")
        grid = torch.stack([xs, ys, torch.ones_like(xs)], dim=-1).float().expand(b, h, w, 3)
        return grid.matmul(self.inv_K.to(depth.device).transpose(2, 1)) * depth.unsqueeze(-1)

    def render(self, depth, image):
        b, h, w = depth.shape
        verts = self.depth_to_3d_grid(depth).reshape(b, -1, 3)
        idx = torch.arange(h * w, device=depth.device).view(h, w)
        tl, tr, bl = idx[:-1, :-1].reshape(-1), idx[:-1, 1:].reshape(-1), idx[1:, :-1].reshape(-1)
        faces = torch.stack([tl, bl, tr], dim=-1).unsqueeze(0).expand(b, -1, -1)
        rgb = image.permute(0, 2, 3, 1).reshape(b, -1, 3)
        mesh = Meshes(verts=verts, faces=faces, textures=TexturesVertex(verts_features=rgb))
        fragments = self.rasterizer(mesh)
        texels = mesh.sample_textures(fragments)
        return hard_rgb_blend(texels, fragments, BlendParams(background_color=(1.0, 1.0, 1.0)))[..., :3]


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    renderer = Renderer(device=device, image_size=64, fov=10)
    depth = torch.full((2, 64, 64), 1.0, device=device)
    image = torch.rand(2, 3, 64, 64, device=device)
    print(renderer.render(depth, image).shape)
