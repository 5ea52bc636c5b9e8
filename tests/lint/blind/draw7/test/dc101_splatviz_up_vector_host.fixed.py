# devcheck bug corpus: DC101
# From: https://github.com/Florian-Barthel/splatviz/issues/2
# From: https://github.com/Florian-Barthel/splatviz/commit/3a4d453c32245698ab85f424f81d3a53a0eef728
# Fixed as the commit does it: the up vector is made on the GPU, at the start
# and when the GUI's floats change (only then), like the look-at point, so the
# renderer compares tensors on one device.
# Written for devcheck's tests after the thread; not the project's code.
import math

import imgui
import torch


def get_origin(yaw, pitch, radius, lookat, device=torch.device("cuda")):
    pitch = min(max(pitch, 1e-5), math.pi - 1e-5)
    origin = torch.zeros(3, device=device)
    origin[0] = radius * math.sin(pitch) * math.cos(math.pi - yaw)
    origin[1] = radius * math.cos(pitch)
    origin[2] = radius * math.sin(pitch) * math.sin(math.pi - yaw)
    return origin + lookat


def get_forward_vector(lookat, yaw, pitch, radius):
    direction = lookat - get_origin(yaw, pitch, radius, lookat)
    return direction / direction.norm()


def equal_dicts(new, old):
    if new is None or old is None:
        return False
    for key, value in new.items():
        if isinstance(value, torch.Tensor):
            if not torch.equal(value, old[key]):
                return False
        elif value != old.get(key):
            return False
    return True


class CamWidget:
    def __init__(self, viz):
        self.viz = viz
        self.radius = 3.0
        self.yaw, self.pitch = 0.0, 0.0
        self.up_vector = torch.tensor([0, -1, 0], device="cuda")  # <- fixed
        self.lookat_point = torch.tensor((0.0, 0.0, 0.0), device="cuda")

    def __call__(self):
        _changed, up = imgui.input_float3("##up_vector", *self.up_vector, format="%.1f")
        if _changed:  # <- fixed
            self.up_vector = torch.tensor(up, device="cuda")  # <- fixed
        if imgui.button("Set current direction"):
            self.up_vector = get_forward_vector(self.lookat_point, self.yaw + math.pi / 2, self.pitch + math.pi / 2, self.radius)
            self.yaw, self.pitch = 0.0, 0.0
        self.viz.args.update(yaw=self.yaw, pitch=self.pitch, radius=self.radius,
                             lookat_point=self.lookat_point, up_vector=self.up_vector)


class Renderer:
    def __init__(self):
        self._cur_args = None

    def set_args(self, **args):
        if not equal_dicts(args, self._cur_args):
            self.render(**args)
            self._cur_args = args

    def render(self, **args):
        print("render", {k: v for k, v in args.items() if not isinstance(v, torch.Tensor)})


class Visualizer:
    def __init__(self):
        self.args = {}
        self.cam_widget = CamWidget(self)
        self.renderer = Renderer()

    def draw_frame(self):
        self.cam_widget()
        self.renderer.set_args(**self.args)


if __name__ == "__main__":
    imgui.create_context()
    viz = Visualizer()
    for _ in range(1000):
        imgui.new_frame()
        viz.draw_frame()
        imgui.render()
