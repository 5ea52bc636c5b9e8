# devcheck bug corpus: DC111
# From: https://github.com/nerfstudio-project/nerfstudio/pull/3219
# Fixed: the evaluation branch moves the plain background tensor to the
# model's device where it is used (.to(self.device)).
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict

import torch
from nerfstudio.cameras.cameras import Cameras
from nerfstudio.models.base_model import Model, ModelConfig


class SplatfactoModel(Model):
    config: ModelConfig

    def populate_modules(self):
        num_points = 10000
        self.means = torch.nn.Parameter(torch.randn(num_points, 3))
        self.colors_param = torch.nn.Parameter(torch.rand(num_points, 3))
        self.opacities = torch.nn.Parameter(torch.zeros(num_points, 1))
        self.background_mode = "random"
        self.background_color = torch.tensor([0.1490, 0.1647, 0.2157])  # <- fixed

    def _get_background_color(self):
        if self.background_mode == "random":
            if self.training:
                background = torch.rand(3, device=self.device)
            else:
                background = self.background_color.to(self.device)  # <- fixed
        elif self.background_mode == "white":
            background = torch.ones(3, device=self.device)
        else:
            background = torch.zeros(3, device=self.device)
        return background

    def get_outputs(self, camera: Cameras) -> Dict[str, torch.Tensor]:
        H, W = int(camera.height.item()), int(camera.width.item())
        weights = torch.sigmoid(self.opacities).view(1, 1, -1)
        colors = torch.sigmoid(self.colors_param)
        alpha = weights.mean(dim=-1, keepdim=True).expand(H, W, 1)
        render = (weights.softmax(-1) @ colors).expand(H, W, 3)
        background = self._get_background_color()
        rgb = render + (1 - alpha) * background
        return {"rgb": torch.clamp(rgb, 0.0, 1.0), "accumulation": alpha, "background": background}

    @torch.no_grad()
    def get_outputs_for_camera(self, camera: Cameras) -> Dict[str, torch.Tensor]:
        return self.get_outputs(camera.to(self.device))


def evaluate(model: SplatfactoModel, cameras: Cameras):
    model.eval()
    images = []
    for i in range(len(cameras)):
        outputs = model.get_outputs_for_camera(cameras[i : i + 1])
        images.append(outputs["rgb"])
    return images


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SplatfactoModel(ModelConfig(), scene_box=None, num_train_data=1).to(device)
    cameras = Cameras(
        camera_to_worlds=torch.eye(4)[:3].unsqueeze(0),
        fx=500.0, fy=500.0, cx=320.0, cy=240.0, width=640, height=480,
    )
    print(len(evaluate(model, cameras)))
