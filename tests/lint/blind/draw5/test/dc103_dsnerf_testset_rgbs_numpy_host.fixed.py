# devcheck bug corpus: DC103
# From: https://github.com/dunbar12138/DSNeRF/issues/93
# From: https://github.com/dunbar12138/DSNeRF/pull/56
# The fix moves the rendered test views to the device of the ground-truth
# images (torch.Tensor(rgbs).to(device)) before the test MSE.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
img2mse = lambda x, y: torch.mean((x - y) ** 2)
mse2psnr = lambda x: -10.0 * torch.log(x) / torch.log(torch.tensor([10.0], device=x.device))


class TinyNeRF(nn.Module):
    def __init__(self, W=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3 + 12, W), nn.ReLU(), nn.Linear(W, 3), nn.Sigmoid())

    def forward(self, coords, pose):
        return self.net(torch.cat([coords, pose.reshape(1, -1).expand(coords.shape[0], -1)], -1))


def render_path(render_poses, hwf, model):
    H, W, focal = hwf
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, H, device=device), torch.linspace(-1, 1, W, device=device), indexing="ij")
    coords = torch.stack([xs, ys, torch.full_like(xs, focal)], -1).reshape(-1, 3)
    rgbs = []
    for c2w in render_poses:
        rgb = model(coords, c2w[:3, :4]).reshape(H, W, 3)
        rgbs.append(rgb.cpu().numpy())
    return np.stack(rgbs, 0)


def train(n_iters=200, i_testset=100):
    H, W, focal = 32, 32, 1.0
    images = np.random.rand(10, H, W, 3).astype(np.float32)
    poses = np.random.randn(10, 3, 4).astype(np.float32)
    i_train, i_test = np.arange(0, 8), np.arange(8, 10)
    images = torch.Tensor(images).to(device)
    model = TinyNeRF().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for i in range(1, n_iters + 1):
        img_i = np.random.choice(i_train)
        target = images[img_i]
        _ = render_path(torch.Tensor(poses[img_i:img_i + 1]).to(device), (H, W, focal), model)
        pred = model(torch.rand(H * W, 3, device=device), torch.Tensor(poses[img_i]).to(device))
        loss = img2mse(pred.reshape(H, W, 3), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % i_testset == 0 and len(i_test) > 0:
            with torch.no_grad():
                rgbs = render_path(torch.Tensor(poses[i_test]).to(device), (H, W, focal), model)
            test_loss = img2mse(torch.Tensor(rgbs).to(device), images[i_test])  # <- fixed
            print(i, mse2psnr(test_loss).item())


if __name__ == "__main__":
    train()
