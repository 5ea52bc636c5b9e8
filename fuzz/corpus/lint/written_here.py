import tempfile
import torch

def test_round_trip(tmp_path):
    model = torch.nn.Linear(2, 2)
    path = tmp_path / "m.pt"
    torch.save(model.state_dict(), path)
    model.load_state_dict(torch.load(path))


class Cache:
    def __init__(self, root):
        self.root = root

    def put(self, key, value):
        torch.save(value, f"{self.root}/{key}.pt")

    def get(self, key):
        return torch.load(f"{self.root}/{key}.pt", weights_only=False)
