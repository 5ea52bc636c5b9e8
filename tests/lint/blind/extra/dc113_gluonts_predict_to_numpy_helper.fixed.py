# devcheck bug corpus: DC113
# From: https://github.com/awslabs/gluonts/pull/1230
# Fixed: the network's output is copied to the host before it is converted.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class PredictionNetwork(nn.Module):
    def __init__(self, context_length, prediction_length):
        super().__init__()
        self.linear = nn.Linear(context_length, prediction_length)

    def forward(self, past_target):
        return self.linear(past_target)


def predict_to_numpy(prediction_net, inputs):
    return prediction_net(*inputs).detach().cpu().numpy()  # <- fixed


class PyTorchPredictor:
    def __init__(self, prediction_net, device):
        self.prediction_net = prediction_net.to(device)
        self.device = device

    def predict(self, batches):
        self.prediction_net.eval()
        outputs = []
        with torch.no_grad():
            for batch in batches:
                inputs = [torch.as_tensor(batch, dtype=torch.float32).to(self.device)]
                outputs.append(predict_to_numpy(self.prediction_net, inputs))
        return np.concatenate(outputs)


def main(batches):
    predictor = PyTorchPredictor(PredictionNetwork(24, 12), torch.device("cuda"))
    print(predictor.predict(batches).shape)
