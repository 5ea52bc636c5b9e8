# devcheck bug corpus: DC101
# From: https://github.com/facebookresearch/pytorch3d/issues/1021
# The fix (as the issue proposes it) builds the cameras with device=R.device, so
# the returned cameras live where the inputs and the meshes are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from pytorch3d.io import load_objs_as_meshes
from pytorch3d.renderer import (
    MeshRasterizer,
    MeshRenderer,
    PerspectiveCameras,
    PointLights,
    RasterizationSettings,
    SoftPhongShader,
)


def cameras_from_opencv_projection(R, tvec, camera_matrix, image_size):
    focal_length = torch.stack([camera_matrix[:, 0, 0], camera_matrix[:, 1, 1]], dim=-1)
    principal_point = camera_matrix[:, :2, 2]
    image_size_wh = image_size.to(R).flip(dims=(1,))
    scale = image_size_wh.min(dim=1, keepdim=True)[0] / 2.0
    c0 = image_size_wh / 2.0
    p0_pytorch3d = -(principal_point - c0) / scale
    focal_pytorch3d = focal_length / scale
    R_pytorch3d = R.clone().permute(0, 2, 1)
    T_pytorch3d = tvec.clone()
    R_pytorch3d[:, :, :2] *= -1
    T_pytorch3d[:, :2] *= -1
    return PerspectiveCameras(  # <- fixed
        R=R_pytorch3d,
        T=T_pytorch3d,
        focal_length=focal_pytorch3d,
        principal_point=p0_pytorch3d,
        image_size=image_size,
        device=R.device,  # <- fixed
    )


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    mesh = load_objs_as_meshes(["cow.obj"], device=device)
    R = torch.eye(3, device=device)[None]
    tvec = torch.tensor([[0.0, 0.0, 3.0]], device=device)
    camera_matrix = torch.tensor([[[500.0, 0.0, 160.0], [0.0, 500.0, 120.0], [0.0, 0.0, 1.0]]], device=device)
    image_size = torch.as_tensor([[240, 320]], device=device)
    cameras = cameras_from_opencv_projection(R, tvec, camera_matrix, image_size)
    renderer = MeshRenderer(
        rasterizer=MeshRasterizer(cameras=cameras, raster_settings=RasterizationSettings(image_size=(240, 320))),
        shader=SoftPhongShader(device=device, cameras=cameras, lights=PointLights(device=device)),
    )
    images = renderer(mesh)
    print(images.shape)


if __name__ == "__main__":
    main()
