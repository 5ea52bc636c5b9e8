# devcheck bug corpus: DC105
# From: https://github.com/KaidiXu/Beta-CROWN/pull/1
# Running the verifier with device cpu still failed: the saved network had been
# saved on a GPU and torch.load was called without map_location.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def load_model(path, device):
    model = torch.load(path, map_location=device)  # <- fixed
    model = model.to(device)
    model.eval()
    return model
