# devcheck bug corpus: DC101
# From: https://github.com/sbi-dev/sbi/issues/441
# From: https://github.com/sbi-dev/sbi/commit/231b526179d85ccba3c53901537f19bc5c5d4829
# Ratio estimation (AALR) on a GPU: the classifier's loss builds its 1/0 labels
# for the joint and marginal pairs with ones(...) and no device, so the binary
# cross-entropy gets GPU likelihoods and host labels.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import Tensor, nn, ones


class SNRE_A:
    def __init__(self, theta_dim, x_dim, device="cpu"):
        self._device = torch.device(device)
        self._classifier = nn.Sequential(
            nn.Linear(theta_dim + x_dim, 50),
            nn.ReLU(),
            nn.Linear(50, 1),
        ).to(self._device)

    def _classifier_logits(self, theta: Tensor, x: Tensor, num_atoms: int) -> Tensor:
        batch_size = theta.shape[0]
        repeated_x = x.repeat_interleave(num_atoms, dim=0)
        # for each x, one theta from the joint and num_atoms - 1 shuffled ones
        perm = torch.randperm(batch_size, device=theta.device)
        contrasting = theta[perm]
        atomic_theta = torch.stack([theta, contrasting], dim=1).reshape(
            batch_size * num_atoms, -1)
        return self._classifier(torch.cat((atomic_theta, repeated_x), dim=1))

    def _loss(self, theta: Tensor, x: Tensor, num_atoms: int) -> Tensor:
        assert theta.shape[0] == x.shape[0], "Batch sizes for theta and x must match."
        batch_size = theta.shape[0]

        logits = self._classifier_logits(theta, x, num_atoms)
        likelihood = torch.sigmoid(logits).squeeze()

        # Alternating pairs: one from the joint (label 1), one from the
        # marginals (label 0).
        labels = ones(2 * batch_size)  # two atoms  # <- bug
        labels[1::2] = 0.0

        return nn.BCELoss()(likelihood, labels)

    def train(self, theta, x, epochs=5, batch_size=50):
        optimizer = torch.optim.Adam(self._classifier.parameters(), lr=5e-4)
        theta, x = theta.to(self._device), x.to(self._device)
        for _ in range(epochs):
            for i in range(0, theta.shape[0], batch_size):
                optimizer.zero_grad()
                loss = self._loss(theta[i:i + batch_size], x[i:i + batch_size],
                                  num_atoms=2)
                loss.backward()
                optimizer.step()
        return self._classifier


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    theta = torch.rand(500, 3) * 2 - 1
    x = theta + 0.1 * torch.randn(500, 3)
    SNRE_A(theta_dim=3, x_dim=3, device=device).train(theta, x)
