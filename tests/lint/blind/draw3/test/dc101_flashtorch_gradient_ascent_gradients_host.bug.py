# devcheck bug corpus: DC101
# From: https://github.com/MisaOgura/flashtorch/pull/40
# FlashTorch's activation maximisation (GradientAscent) with use_gpu: the
# model and the input image were moved to CUDA, but the gradient buffer the
# ascent adds to the image each step was initialised with
# torch.zeros(input_.shape), on the CPU (a backward hook replaces it with the
# input's gradient only when the shapes match), and the update x + gradients
# * lr failed on the two devices. The PR ("use the right device") makes it
# with torch.zeros_like(input_), on the input's device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from torchvision import transforms


def apply_transforms(image, size=224):
    tf = transforms.Compose([transforms.ToPILImage(), transforms.Resize(size), transforms.ToTensor(),
                             transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    tensor = tf(image).unsqueeze(0)
    tensor.requires_grad = True
    return tensor


class GradientAscent:
    def __init__(self, model, img_size=224, lr=1.0, use_gpu=False):
        self.model = model
        self._img_size = img_size
        self._lr = lr
        self._use_gpu = use_gpu
        self.activation = None
        self.gradients = None
        self.handlers = []

    def optimize(self, layer, filter_idx, input_=None, num_iter=30):
        if type(layer) != nn.modules.conv.Conv2d:
            raise TypeError("The layer must be nn.modules.conv.Conv2d.")
        if input_ is None:
            input_ = np.uint8(np.random.uniform(150, 180, (self._img_size, self._img_size, 3)))
            input_ = apply_transforms(input_, size=self._img_size)
        if torch.cuda.is_available() and self._use_gpu:
            self.model = self.model.to("cuda")
            input_ = input_.to("cuda")
        while len(self.handlers) > 0:
            self.handlers.pop().remove()
        self.handlers.append(self._register_forward_hooks(layer, filter_idx))
        self.handlers.append(self._register_backward_hooks())
        self.gradients = torch.zeros(input_.shape)  # <- bug
        return self._ascent(input_, num_iter)

    def _register_forward_hooks(self, layer, filter_idx):
        def _record_activation(module, input_, output):
            self.activation = torch.mean(output[:, filter_idx, :, :])

        return layer.register_forward_hook(_record_activation)

    def _register_backward_hooks(self):
        def _record_gradients(module, grad_in, grad_out):
            if self.gradients.shape == grad_in[0].shape:
                self.gradients = grad_in[0]

        for _, module in self.model.named_modules():
            if isinstance(module, nn.modules.conv.Conv2d) and module.in_channels == 3:
                return module.register_backward_hook(_record_gradients)

    def _ascent(self, x, num_iter):
        output = []
        for i in range(num_iter):
            self.model(x)
            self.activation.backward()
            self.gradients /= torch.sqrt(torch.mean(torch.mul(self.gradients, self.gradients))) + 1e-5
            x = x + self.gradients * self._lr
            output.append(x)
        return output
