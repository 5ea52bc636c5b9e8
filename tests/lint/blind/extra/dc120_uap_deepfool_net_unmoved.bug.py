# devcheck bug corpus: DC120
# From: https://github.com/NetoPedro/Universal-Adversarial-Perturbations-Pytorch/issues/1
# A universal-adversarial-perturbation script moved each perturbed image to
# CUDA inside its `generate` function and classified it with the network it
# was handed, which had been built and loaded in the main block and never
# moved: "Input type (torch.cuda.FloatTensor) and weight type
# (torch.FloatTensor) should be the same" at `net(cur_img1)`. Every call of
# the network on a CUDA image here is the bug's line.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torchvision


def generate(images, net, delta=0.2, max_iter=10, xi=10):
    v = torch.zeros(1, 3, 224, 224)
    fooling_rate = 0.0
    it = 0
    while fooling_rate < 1 - delta and it < max_iter:
        for img in images:
            cur_img = img.unsqueeze(0).cuda()
            r2 = net(cur_img).max(1)[1]  # <- bug
            cur_img1 = (cur_img + v.cuda()).clamp(0, 1)
            r1 = net(cur_img1).max(1)[1]  # <- bug
            if int(r1) == int(r2):
                v = (v + 0.01 * torch.randn_like(v)).clamp(-xi / 255, xi / 255)
        it += 1
        fooling_rate = float(np.random.rand())
    return v


if __name__ == "__main__":
    net = torchvision.models.resnet18()
    net.load_state_dict(torch.load("resnet18.pth", map_location="cpu"))
    net.eval()
    print(generate([torch.rand(3, 224, 224) for _ in range(4)], net).abs().max())  # <- bug
