# devcheck bug corpus: DC101
# From: https://github.com/BadCafeCode/masquerade-nodes-comfyui/pull/25
# ComfyUI mask nodes: tensor2rgba() adds an alpha channel made with
# torch.ones(...) and no device, and the "Cut By Mask" node builds its alpha
# mask and its result buffer with torch.ones/torch.zeros the same way. When
# ComfyUI hands the node images that live on the GPU, torch.cat and the
# multiplication meet cpu and cuda:0.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torchvision.ops import masks_to_boxes


def tensor2mask(t):
    if t.dim() < 4:
        return t
    return t[..., 3] if t.shape[3] == 4 else t[..., :3].mean(dim=3)


def tensor2rgba(t):
    size = t.size()
    if len(size) < 4:
        return t.unsqueeze(3).repeat(1, 1, 1, 4)
    if size[3] == 1:
        return t.repeat(1, 1, 1, 4)
    if size[3] == 3:
        alpha_tensor = torch.ones((size[0], size[1], size[2], 1))  # <- bug
        return torch.cat((t, alpha_tensor), dim=3)
    return t


class CutByMask:
    RETURN_TYPES = ("IMAGE",)
    FUNCTION = "cut"
    CATEGORY = "Masquerade Nodes"

    def cut(self, image, mask, force_resize_width=0, force_resize_height=0):
        image = tensor2rgba(image)
        mask = tensor2mask(mask)
        B, H, W, _ = image.shape
        mask = torch.nn.functional.interpolate(mask.unsqueeze(1), size=(H, W), mode="nearest")[:, 0]
        is_empty = ~torch.gt(mask.reshape(B, H * W).max(dim=1).values, 0.0)
        mask[is_empty, 0, 0] = 1.0
        boxes = masks_to_boxes(mask)
        mask[is_empty, 0, 0] = 0.0
        width = boxes[:, 2] - boxes[:, 0] + 1
        height = boxes[:, 3] - boxes[:, 1] + 1
        use_width = force_resize_width or int(width.max().item())
        use_height = force_resize_height or int(height.max().item())

        alpha_mask = torch.ones((B, H, W, 4))  # <- bug
        alpha_mask[:, :, :, 3] = mask
        image = image * alpha_mask

        result = torch.zeros((B, use_height, use_width, 4))  # <- bug
        for i in range(B):
            if not is_empty[i]:
                x0, y0, x1, y1 = (int(v) for v in boxes[i].tolist())
                crop = image[i, y0:y1 + 1, x0:x1 + 1, :].unsqueeze(0).permute(0, 3, 1, 2)
                resized = torch.nn.functional.interpolate(crop, size=(use_height, use_width), mode="bicubic")
                result[i] = resized.permute(0, 2, 3, 1)[0]
        return (result,)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
image = torch.rand(2, 64, 64, 3, device=device)
mask = (torch.rand(2, 64, 64, 3, device=device) > 0.7).float()
print(CutByMask().cut(image, mask)[0].shape)
