# devcheck bug corpus: DC105
# From: https://github.com/xinjli/allosaurus/pull/7
# The fix (PR 7) gives the GPU branch's load map_location=cuda:<device_id>,
# so the checkpoint is read straight onto the GPU the model will run on.
# Written for devcheck's tests after the thread; not the project's code.
from collections import OrderedDict

import torch
import torch.nn as nn


class PhoneRecognizer(nn.Module):
    def __init__(self, input_size=120, hidden_size=320, phone_size=230):
        super().__init__()
        self.encoder = nn.LSTM(input_size, hidden_size, num_layers=3, batch_first=True, bidirectional=True)
        self.phone_layer = nn.Linear(hidden_size * 2, phone_size)

    def forward(self, feats):
        out, _ = self.encoder(feats)
        return self.phone_layer(out).log_softmax(dim=-1)


def torch_load(model, path, device_id):
    """device_id: gpu id, -1 for the cpu"""
    if device_id >= 0:
        model_state_dict = torch.load(str(path), map_location=torch.device(f"cuda:{device_id}"))  # <- fixed
    else:
        model_state_dict = torch.load(str(path), map_location=torch.device("cpu"))

    new_state_dict = OrderedDict()
    for k, v in model_state_dict.items():
        if k.startswith("allophone_layer_dict"):
            continue
        name = k[7:] if k.startswith("module.") else k
        new_state_dict[name] = v
    model.load_state_dict(new_state_dict)

    if device_id >= 0:
        model = model.cuda(device_id)
    return model


def read_am(model_path, device_id):
    model = PhoneRecognizer()
    return torch_load(model, model_path + "/model.pt", device_id)


def recognize(model, feats, device_id):
    tensor = torch.from_numpy(feats).float().unsqueeze(0)
    if device_id >= 0:
        tensor = tensor.cuda(device_id)
    with torch.no_grad():
        return model(tensor).argmax(dim=-1)[0].tolist()


if __name__ == "__main__":
    import numpy as np

    am = read_am("pretrained/uni2005", device_id=2)
    print(recognize(am, np.random.randn(200, 120).astype("float32"), device_id=2))
