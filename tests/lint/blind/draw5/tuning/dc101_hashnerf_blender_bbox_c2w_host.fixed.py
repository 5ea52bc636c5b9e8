# devcheck bug corpus: DC101
# From: https://github.com/yashbhalgat/HashNeRF-pytorch/issues/41
# The fix given in the thread moves each pose to the GPU where the ray
# directions are (c2w = c2w.to("cuda:0")) before computing the rays.
# Written for devcheck's tests after the thread; not the project's code.
import json
import os

import numpy as np
import torch
from kornia import create_meshgrid


def get_ray_directions(H, W, focal):
    grid = create_meshgrid(H, W, normalized_coordinates=False)[0]
    i, j = grid.unbind(-1)
    return torch.stack([(i - W / 2) / focal, -(j - H / 2) / focal, -torch.ones_like(i)], -1)


def get_rays(directions, c2w):
    rays_d = directions @ c2w[:3, :3].T
    rays_d = rays_d / torch.norm(rays_d, dim=-1, keepdim=True)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o.view(-1, 3), rays_d.view(-1, 3)


def get_bbox3d_for_blenderobj(camera_transforms, H, W, near=2.0, far=6.0):
    focal = 0.5 * W / np.tan(0.5 * float(camera_transforms["camera_angle_x"]))
    directions = get_ray_directions(H, W, focal)
    min_bound = [100.0, 100.0, 100.0]
    max_bound = [-100.0, -100.0, -100.0]
    for frame in camera_transforms["frames"]:
        c2w = torch.FloatTensor(frame["transform_matrix"])  # <- fixed
        c2w = c2w.to("cuda:0")  # <- fixed
        rays_o, rays_d = get_rays(directions, c2w)  # <- fixed
        for i in [0, W - 1, H * W - W, H * W - 1]:
            for pt in (rays_o[i] + near * rays_d[i], rays_o[i] + far * rays_d[i]):
                for k in range(3):
                    min_bound[k] = min(min_bound[k], float(pt[k]))
                    max_bound[k] = max(max_bound[k], float(pt[k]))
    return torch.tensor(min_bound) - 1.0, torch.tensor(max_bound) + 1.0


def load_blender_data(basedir, half_res=False):
    with open(os.path.join(basedir, "transforms_train.json")) as fp:
        meta = json.load(fp)
    H, W = (400, 400) if half_res else (800, 800)
    return get_bbox3d_for_blenderobj(meta, H, W, near=2.0, far=6.0)


if __name__ == "__main__":
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
    print(load_blender_data("./data/nerf_synthetic/lego", half_res=True))
