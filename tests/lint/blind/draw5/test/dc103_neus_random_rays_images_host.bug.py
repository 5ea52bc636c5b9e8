# devcheck bug corpus: DC103
# From: https://github.com/Totoro97/NeuS/issues/92
# NeuS training: the runner makes CUDA the default tensor type, so the random
# pixel indices drawn with torch.randint are CUDA tensors, while the dataset
# keeps its images and masks as CPU tensors made from NumPy
# (torch.from_numpy(...).cpu()); indexing them with the CUDA pixel indices
# fails on PyTorch newer than 1.8 ("indices should be either on cpu or on the
# same device as the indexed tensor (cpu)").
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


class Dataset:
    def __init__(self, n_images=4, H=64, W=80):
        self.device = torch.device("cuda")
        self.images_np = np.random.rand(n_images, H, W, 3)
        self.masks_np = (np.random.rand(n_images, H, W, 3) > 0.5).astype(np.float64)
        self.images = torch.from_numpy(self.images_np.astype(np.float32)).cpu()  # <- bug
        self.masks = torch.from_numpy(self.masks_np.astype(np.float32)).cpu()  # <- bug
        intrinsics = np.tile(np.eye(4, dtype=np.float32), (n_images, 1, 1))
        intrinsics[:, 0, 0] = intrinsics[:, 1, 1] = 100.0
        self.intrinsics_all = torch.from_numpy(intrinsics).to(self.device)
        self.intrinsics_all_inv = torch.inverse(self.intrinsics_all)
        self.pose_all = torch.from_numpy(np.tile(np.eye(4, dtype=np.float32), (n_images, 1, 1))).to(self.device)
        self.H, self.W = self.images.shape[1], self.images.shape[2]

    def gen_random_rays_at(self, img_idx, batch_size):
        pixels_x = torch.randint(low=0, high=self.W, size=[batch_size])
        pixels_y = torch.randint(low=0, high=self.H, size=[batch_size])
        color = self.images[img_idx][(pixels_y, pixels_x)]  # <- bug
        mask = self.masks[img_idx][(pixels_y, pixels_x)]  # <- bug
        p = torch.stack([pixels_x, pixels_y, torch.ones_like(pixels_y)], dim=-1).float()
        p = torch.matmul(self.intrinsics_all_inv[img_idx, None, :3, :3], p[:, :, None]).squeeze()
        rays_v = p / torch.linalg.norm(p, ord=2, dim=-1, keepdim=True)
        rays_v = torch.matmul(self.pose_all[img_idx, None, :3, :3], rays_v[:, :, None]).squeeze()
        rays_o = self.pose_all[img_idx, None, :3, 3].expand(rays_v.shape)
        return torch.cat([rays_o.cpu(), rays_v.cpu(), color, mask[:, :1]], dim=-1).cuda()


class Runner:
    def __init__(self, batch_size=512, end_iter=100):
        self.dataset = Dataset()
        self.batch_size = batch_size
        self.end_iter = end_iter
        self.iter_step = 0

    def get_image_perm(self):
        return torch.randperm(self.dataset.images.shape[0])

    def train(self):
        image_perm = self.get_image_perm()
        for _ in range(self.end_iter):
            data = self.dataset.gen_random_rays_at(image_perm[self.iter_step % len(image_perm)], self.batch_size)
            rays_o, rays_d, true_rgb, mask = data[:, :3], data[:, 3:6], data[:, 6:9], data[:, 9:10]
            self.iter_step += 1
            if self.iter_step % len(image_perm) == 0:
                image_perm = self.get_image_perm()


if __name__ == "__main__":
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
    Runner().train()
