# devcheck bug corpus: DC112
# From: https://github.com/jacobgil/pytorch-grad-cam/pull/546
# Fixed: the target keeps its mask where it was made and moves it to the
# model output's device when it is called.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class SemanticSegmentationTarget:
    def __init__(self, category, mask):
        self.category = category
        self.mask = torch.from_numpy(mask)

    def __call__(self, model_output):
        return (model_output[self.category, :, :] * self.mask.to(model_output.device)).sum()  # <- fixed


class SegmentationModelOutputWrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class GradCAM:
    def __init__(self, model, target_layer, device):
        self.model, self.device = model.to(device).eval(), device
        self.activations = self.gradients = None
        target_layer.register_forward_hook(lambda m, i, o: setattr(self, "activations", o))
        target_layer.register_full_backward_hook(lambda m, gi, go: setattr(self, "gradients", go[0]))

    def __call__(self, input_tensor, targets):
        input_tensor = input_tensor.to(self.device)
        outputs = self.model(input_tensor)
        self.model.zero_grad()
        loss = sum(target(output) for target, output in zip(targets, outputs))
        loss.backward()
        weights = self.gradients.mean(dim=(2, 3), keepdim=True)
        return torch.relu((weights * self.activations).sum(1)).detach().cpu().numpy()


if __name__ == "__main__":
    from torchvision.models.segmentation import deeplabv3_resnet50

    model = SegmentationModelOutputWrapper(deeplabv3_resnet50(weights="DEFAULT"))
    image = torch.rand(1, 3, 256, 256)
    car_mask = np.zeros((256, 256), dtype=np.float32)
    car_mask[100:180, 60:200] = 1.0
    cam = GradCAM(model, target_layer=model.model.backbone.layer4, device="cpu")
    heatmap = cam(image, targets=[SemanticSegmentationTarget(7, car_mask)])
    print(heatmap.shape)
