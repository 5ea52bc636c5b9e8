# devcheck bug corpus: DC101
# From: https://github.com/kornia/kornia/pull/4301
# Fixed: the colormap (still drawn with the CPU generator, so the colours
# stay the same on every device) is moved to the mask's device before it
# is indexed.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch import Tensor


class SemanticSegmentation(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, num_classes, 1))

    def forward(self, images: Tensor) -> Tensor:
        return self.model(images).softmax(dim=1)

    def get_colormap(self, num_classes: int, manual_seed: int = 2147) -> Tensor:
        g_cpu = torch.Generator()
        g_cpu.manual_seed(manual_seed)
        colors = torch.rand(num_classes, 3, generator=g_cpu)  # <- fixed
        return colors

    def visualize_output(self, semantic_mask: Tensor, colors: Tensor) -> Tensor:
        channel_dim = 0 if semantic_mask.dim() == 3 else 1
        one = torch.tensor(1, dtype=semantic_mask.dtype, device=semantic_mask.device)
        if not torch.allclose(semantic_mask.sum(dim=channel_dim), one):
            raise ValueError("Only multiclass segmentation is supported.")
        semantic_mask = semantic_mask.argmax(dim=channel_dim, keepdim=True)
        colors = colors.to(semantic_mask.device)  # <- fixed
        output = colors[semantic_mask.squeeze(channel_dim)]
        return output.permute(2, 0, 1) if semantic_mask.dim() == 3 else output.permute(0, 3, 1, 2)

    def visualize(self, images: Tensor, manual_seed: int = 2147) -> Tensor:
        semantic_masks = self.forward(images)
        colors = self.get_colormap(semantic_masks.size(1), manual_seed=manual_seed)
        return self.visualize_output(semantic_masks, colors)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = SemanticSegmentation().to(device).eval()
with torch.no_grad():
    colored = model.visualize(torch.rand(2, 3, 64, 64, device=device))
print(colored.shape, colored.device)
