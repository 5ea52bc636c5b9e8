# devcheck bug corpus: DC101
# From: https://github.com/akarasman/yolo-heatmaps/issues/13
# A layer-wise relevance propagation explainer for a detector on the GPU
# keeps the relevance where an outlier mask holds and zero elsewhere with
# torch.where(mask, relevance, torch.tensor(0.0)). The zero was made without
# a device; the reporter's torch refused it: "Expected condition, x and y to
# be on the same device, but condition is on cuda:0 and x and y are on
# cuda:0 and CPU respectively". The fix makes it on the explainer's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class YOLOv5LRP(nn.Module):
    def __init__(self, model, device, power=1, eps=1e-5):
        super().__init__()
        self.model = model.to(device)
        self.device = device
        self.power = power
        self.eps = eps

    def relevance(self, x):
        x = x.requires_grad_()
        out = self.model(x)
        out.sum().backward()
        return (x * x.grad).sum(dim=1)

    def explain(self, img, contrastive=False):
        img = img.to(self.device)
        lrp_p = self.relevance(img)
        limit = torch.quantile(lrp_p.flatten(), 0.99)
        outlier_mask = (lrp_p <= limit)
        explanation = torch.where(outlier_mask, lrp_p, torch.tensor(0.0))  # <- bug
        return explanation / explanation.abs().max().clamp_min(self.eps)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    detector = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 5, 1))
    lrp = YOLOv5LRP(detector, device)
    print(lrp.explain(torch.rand(1, 3, 64, 64)).shape)


if __name__ == "__main__":
    main()
