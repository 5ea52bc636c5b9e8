# devcheck bug corpus: DC112
# From: https://github.com/Project-MONAI/GenerativeModels/pull/371
# The patch adversarial loss builds its target (or zero) tensor with
# torch.tensor(1).fill_(label).type(input.type()). The type string
# ("torch.cuda.FloatTensor") names CUDA but no device index, so the label is
# made on the current CUDA device, cuda:0, whatever GPU the discriminator's
# output is on: training on "cuda:1" failed with a device mismatch in the
# loss. The fix moves the labels to the input's own device.
# Written for devcheck's tests after the thread; not the project's code.
from __future__ import annotations

import torch
from torch.nn.modules.loss import _Loss


class PatchAdversarialLoss(_Loss):
    def __init__(self, reduction: str = "mean", criterion: str = "least_squares") -> None:
        super().__init__(reduction=reduction)
        self.real_label = 1.0
        self.fake_label = 0.0
        if criterion == "bce":
            self.activation = torch.nn.Sigmoid()
            self.loss_fct = torch.nn.BCELoss(reduction=reduction)
        elif criterion == "hinge":
            self.activation = torch.nn.Tanh()
            self.fake_label = -1.0
        else:
            self.activation = torch.nn.LeakyReLU(0.05)
            self.loss_fct = torch.nn.MSELoss(reduction=reduction)
        self.criterion = criterion

    def get_target_tensor(self, input: torch.Tensor, target_is_real: bool) -> torch.Tensor:
        filling_label = self.real_label if target_is_real else self.fake_label
        label_tensor = torch.tensor(1).fill_(filling_label).type(input.type())  # <- bug
        label_tensor.requires_grad_(False)
        return label_tensor.expand_as(input)

    def get_zero_tensor(self, input: torch.Tensor) -> torch.Tensor:
        zero_label_tensor = torch.tensor(0).type(input[0].type())  # <- bug
        zero_label_tensor.requires_grad_(False)
        return zero_label_tensor.expand_as(input)

    def forward(self, input, target_is_real: bool, for_discriminator: bool):
        if not for_discriminator and not target_is_real:
            target_is_real = True
        if type(input) is not list:
            input = [input]
        target_ = []
        for disc_out in input:
            if self.criterion != "hinge":
                target_.append(self.get_target_tensor(disc_out, target_is_real))
            else:
                target_.append(self.get_zero_tensor(disc_out))
        loss = []
        for disc_ind, disc_out in enumerate(input):
            disc_out = self.activation(disc_out)
            if self.criterion == "hinge":
                sign = -1 if not target_is_real else 1
                loss.append(-torch.min(sign * disc_out - 1, target_[disc_ind]).mean())
            else:
                loss.append(self.loss_fct(disc_out, target_[disc_ind]))
        return torch.mean(torch.stack(loss))


if __name__ == "__main__":
    device = torch.device("cuda:1")
    disc = torch.nn.Conv2d(1, 1, 3).to(device)
    adv = PatchAdversarialLoss(criterion="least_squares")
    out = disc(torch.randn(2, 1, 16, 16, device=device))
    adv(out, target_is_real=True, for_discriminator=True).backward()
