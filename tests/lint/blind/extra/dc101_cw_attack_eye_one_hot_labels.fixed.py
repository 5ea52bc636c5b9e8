# devcheck bug corpus: DC101
# From: https://github.com/Harry24k/CW-pytorch/issues/3
# Fixed: the identity matrix is made on the labels' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.optim as optim


def cw_l2_attack(model, images, labels, device, c=1e-4, kappa=0, max_iter=100, learning_rate=0.01):
    images = images.to(device)
    labels = labels.to(device)

    def f(x):
        outputs = model(x)
        one_hot_labels = torch.eye(len(outputs[0]), device=labels.device)[labels]  # <- fixed
        i, _ = torch.max((1 - one_hot_labels) * outputs, dim=1)
        j = torch.masked_select(outputs, one_hot_labels.bool())
        return torch.clamp(j - i, min=-kappa)

    w = torch.zeros_like(images, requires_grad=True)
    optimizer = optim.Adam([w], lr=learning_rate)
    for _ in range(max_iter):
        a = 1 / 2 * (nn.Tanh()(w) + 1)
        loss1 = nn.MSELoss(reduction="sum")(a, images)
        loss2 = torch.sum(c * f(a))
        cost = loss1 + loss2
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
    return (1 / 2 * (nn.Tanh()(w) + 1)).detach()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 10)).to(device).eval()
    images = torch.rand(4, 3, 32, 32)
    labels = torch.randint(0, 10, (4,))
    print(cw_l2_attack(model, images, labels, device).shape)


if __name__ == "__main__":
    main()
