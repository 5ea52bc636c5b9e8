# devcheck bug corpus: DC120
# From: https://github.com/gnn-tracking/gnn_tracking/issues/75
# From: https://github.com/gnn-tracking/gnn_tracking/commit/62abcfcb1fd0b2050eba112698da7b9826c2e6d5
# The fix removes the loss's device argument and its copies: the
# condensation points and charges stay where the model's outputs are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.nn.functional import relu


class PotentialLoss(nn.Module):
    def __init__(self, q_min=0.01, radius_threshold=10.0):  # <- fixed
        super().__init__()
        self.q_min = q_min
        self.radius_threshold = radius_threshold

    def condensation_loss(self, *, beta, x, particle_id):
        pids = torch.unique(particle_id[particle_id > 0])
        pid_masks = particle_id[:, None] == pids[None, :]
        q = torch.arctanh(beta) ** 2 + self.q_min
        alphas = torch.argmax(q[:, None] * pid_masks, dim=0)
        x_alphas = x[alphas].transpose(0, 1)  # <- fixed
        q_alphas = q[alphas][None, None, :]  # <- fixed
        diff = x[:, :, None] - x_alphas[None, :, :]  # <- fixed
        norm_sq = torch.sum(diff ** 2, dim=1)
        va = q[:, None] * pid_masks * (norm_sq * q_alphas).squeeze(dim=0)
        vr = q[:, None] * (~pid_masks) * (relu(self.radius_threshold - torch.sqrt(norm_sq + 1e-8)) * q_alphas).squeeze(dim=0)
        return {"attractive": torch.sum(torch.mean(va, dim=0)), "repulsive": torch.sum(torch.mean(vr, dim=0))}

    def forward(self, *, beta, x, particle_id, **kwargs):
        return self.condensation_loss(beta=beta, x=x, particle_id=particle_id)


class CondensationNet(nn.Module):
    def __init__(self, in_dim=6, h_dim=3):
        super().__init__()
        self.embed = nn.Linear(in_dim, h_dim)
        self.beta = nn.Linear(in_dim, 1)

    def forward(self, data):
        return {"x": self.embed(data["x"]), "beta": torch.sigmoid(self.beta(data["x"])).squeeze(-1) * 0.99 + 0.005, "particle_id": data["particle_id"]}


class TCNTrainer:
    def __init__(self, model, loader, loss_functions, device="cpu"):
        self.device = device
        self.model = model.to(device)
        self.loader = loader
        self.loss_functions = loss_functions
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def get_batch_losses(self, model_output):
        losses = {}
        for key, loss_func in self.loss_functions.items():
            losses.update(loss_func(**model_output))
        return sum(losses.values()), losses

    def train_step(self):
        self.model.train()
        for data in self.loader:
            data = {k: v.to(self.device) for k, v in data.items()}
            model_output = self.model(data)
            batch_loss, _ = self.get_batch_losses(model_output)
            self.optimizer.zero_grad()
            batch_loss.backward()
            self.optimizer.step()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    graphs = [{"x": torch.randn(200, 6), "particle_id": torch.randint(0, 10, (200,))} for _ in range(4)]
    trainer = TCNTrainer(CondensationNet(), graphs, {"potential": PotentialLoss(q_min=0.01)}, device=device)
    trainer.train_step()
