# devcheck bug corpus: DC120
# From: https://github.com/kijai/ComfyUI-KJNodes/issues/117
# Fixed as the reporter did: the resized second image is moved to image1's
# device before the two are concatenated.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from comfy.utils import common_upscale


class ImageConcanate:
    @classmethod
    def INPUT_TYPES(s):
        return {"required": {
            "image1": ("IMAGE",),
            "image2": ("IMAGE",),
            "direction": (["right", "down", "left", "up"], {"default": "right"}),
            "match_image_size": ("BOOLEAN", {"default": True}),
        }}

    RETURN_TYPES = ("IMAGE",)
    FUNCTION = "concanate"
    CATEGORY = "KJNodes/image"

    def concanate(self, image1, image2, direction, match_image_size, first_image_shape=None):
        batch_size1, batch_size2 = image1.shape[0], image2.shape[0]
        if batch_size1 != batch_size2:
            max_batch_size = max(batch_size1, batch_size2)
            image1 = image1.repeat(max_batch_size // batch_size1, 1, 1, 1)
            image2 = image2.repeat(max_batch_size // batch_size2, 1, 1, 1)
        if match_image_size:
            target_shape = first_image_shape if first_image_shape is not None else image1.shape
            aspect = image2.shape[2] / image2.shape[1]
            if direction in ["left", "right"]:
                target_height = target_shape[1]
                target_width = int(target_height * aspect)
            else:
                target_width = target_shape[2]
                target_height = int(target_width / aspect)
            image2_for_upscale = image2.movedim(-1, 1)
            image2_resized = common_upscale(image2_for_upscale, target_width, target_height, "lanczos", "disabled")
            image2_resized = image2_resized.movedim(1, -1)
        else:
            image2_resized = image2
        if image1.shape[-1] < image2_resized.shape[-1]:
            alpha_channel = torch.ones((*image1.shape[:-1], image2_resized.shape[-1] - image1.shape[-1]), device=image1.device)
            image1 = torch.cat((image1, alpha_channel), dim=-1)
        elif image1.shape[-1] > image2_resized.shape[-1]:
            alpha_channel = torch.ones((*image2_resized.shape[:-1], image1.shape[-1] - image2_resized.shape[-1]), device=image2_resized.device)
            image2_resized = torch.cat((image2_resized, alpha_channel), dim=-1)
        image2_resized = image2_resized.to(image1.device)  # <- fixed
        if direction == "right":
            concatenated_image = torch.cat((image1, image2_resized), dim=2)  # <- fixed
        elif direction == "down":
            concatenated_image = torch.cat((image1, image2_resized), dim=1)  # <- fixed
        elif direction == "left":
            concatenated_image = torch.cat((image2_resized, image1), dim=2)  # <- fixed
        elif direction == "up":
            concatenated_image = torch.cat((image2_resized, image1), dim=1)  # <- fixed
        return (concatenated_image,)
