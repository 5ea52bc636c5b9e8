# devcheck bug corpus: DC105
# From: https://github.com/facebookresearch/fairchem/pull/250
# Fixed: the checkpoint is mapped to the trainer's device (the CPU when it runs there).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class EnergyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 64), nn.SiLU(), nn.Linear(64, 1))

    def forward(self, pos):
        return self.net(pos).sum(dim=1)


class ForcesTrainer:
    def __init__(self, cpu=False):
        self.cpu = cpu
        self.device = torch.device("cpu" if cpu or not torch.cuda.is_available() else "cuda")
        self.model = EnergyModel().to(self.device)

    def load_pretrained(self, checkpoint_path):
        checkpoint = torch.load(checkpoint_path, map_location=self.device)  # <- fixed
        self.model.load_state_dict(checkpoint["state_dict"])

    def predict(self, positions):
        self.model.eval()
        with torch.no_grad():
            return self.model(positions.to(self.device))


def main():
    trainer = ForcesTrainer(cpu=True)
    trainer.load_pretrained("checkpoints/best.pt")
    print(trainer.predict(torch.randn(4, 10, 3)))


if __name__ == "__main__":
    main()
