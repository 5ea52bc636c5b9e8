# devcheck bug corpus: DC112
# From: https://github.com/facebookresearch/sam-3d-body/pull/81
# Fixed: every hard-coded CUDA move follows the model's device instead:
# .to(self.device) in the model, recursive_to(batch, self.device.type) in
# the estimator.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def recursive_to(x, target):
    if isinstance(x, dict):
        return {k: recursive_to(v, target) for k, v in x.items()}
    if isinstance(x, torch.Tensor):
        return x.to(target)
    return x


class SAM3DBody(nn.Module):
    def __init__(self, num_joints=127):
        super().__init__()
        self.backbone = nn.Conv2d(3, 64, 16, stride=16)
        self.joint_head = nn.Linear(64, num_joints * 9)
        self.num_joints = num_joints

    @property
    def device(self):
        return next(self.parameters()).device

    def ray_condition(self, batch):
        B, N, _, H, W = batch["img"].shape
        meshgrid_xy = (
            torch.stack(torch.meshgrid(torch.arange(H), torch.arange(W), indexing="xy"), dim=2)[None, None]
            .repeat(B, N, 1, 1, 1)
            .to(self.device)  # <- fixed
        )
        return meshgrid_xy / batch["affine_trans"][:, :, None, None, [0, 1], [0, 1]]

    def forward_step(self, batch):
        feats = self.backbone(batch["img"].flatten(0, 1)).mean((2, 3))
        return self.joint_head(feats).view(-1, self.num_joints, 3, 3)

    def refine_hands(self, joint_rotations):
        lowarm_joint_idxs = torch.LongTensor([76, 40]).to(self.device)  # <- fixed
        wrist_twist_joint_idxs = torch.LongTensor([77, 41]).to(self.device)  # <- fixed
        lowarm = joint_rotations[:, lowarm_joint_idxs]
        return lowarm @ joint_rotations[:, wrist_twist_joint_idxs].transpose(-1, -2)


class SAM3DBodyEstimator:
    def __init__(self, sam_3d_body_model):
        self.device = sam_3d_body_model.device
        self.model = sam_3d_body_model

    @torch.no_grad()
    def process_one_image(self, batch):
        batch = recursive_to(batch, self.device.type)  # <- fixed
        rays = self.model.ray_condition(batch)
        rotations = self.model.forward_step(batch)
        return rays, self.model.refine_hands(rotations)


def load_sam_3d_body(checkpoint_path="", device="cuda"):
    model = SAM3DBody()
    if checkpoint_path:
        model.load_state_dict(torch.load(checkpoint_path, map_location="cpu", weights_only=True))
    model = model.to(device)
    return model.eval()


if __name__ == "__main__":
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    estimator = SAM3DBodyEstimator(load_sam_3d_body(device=device))
    batch = {"img": torch.rand(1, 1, 3, 256, 256), "affine_trans": torch.ones(1, 1, 2, 3)}
    print(estimator.process_one_image(batch)[1].shape)
