# devcheck bug corpus: DC101
# From: https://github.com/pytorch/vision/pull/787
# From: https://github.com/pytorch/pytorch/issues/19028
# The fix makes the mean and std tensors on the image's device
# (device=tensor.device), so normalize() works on tensors on any device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from PIL import Image
from torchvision import transforms


def _is_tensor_image(img):
    return torch.is_tensor(img) and img.ndimension() == 3


def normalize(tensor, mean, std, inplace=False):
    if not _is_tensor_image(tensor):
        raise TypeError("tensor is not a torch image.")
    if not inplace:
        tensor = tensor.clone()
    mean = torch.tensor(mean, dtype=torch.float32, device=tensor.device)  # <- fixed
    std = torch.tensor(std, dtype=torch.float32, device=tensor.device)  # <- fixed
    tensor.sub_(mean[:, None, None]).div_(std[:, None, None])
    return tensor


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def __call__(self, tensor):
        return normalize(tensor, self.mean, self.std, self.inplace)


if __name__ == "__main__":
    gpu_device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    img = transforms.ToTensor()(Image.new("RGB", (64, 64), color=(120, 30, 200)))
    img = img.to(gpu_device)
    norm = Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
    content_image = norm(img)
    print(content_image.mean().item())
