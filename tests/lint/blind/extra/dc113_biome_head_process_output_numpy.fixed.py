# devcheck bug corpus: DC113
# From: https://github.com/argilla-io/biome-text/issues/145
# Fixed: the probabilities are copied to the host before NumPy reads them.
# Written for devcheck's tests after the thread; not the project's code.
import numpy
import torch.nn as nn
import torch.nn.functional as F


class ClassificationHead(nn.Module):
    def __init__(self, labels, input_dim):
        super().__init__()
        self.labels = labels
        self.linear = nn.Linear(input_dim, len(labels))

    def forward(self, encoded):
        logits = self.linear(encoded)
        return {"logits": logits, "probs": F.softmax(logits, dim=-1)}

    def process_output(self, output):
        probs_batch = output["probs"]
        if not isinstance(probs_batch, numpy.ndarray):
            probs_batch = probs_batch.detach().cpu().numpy()  # <- fixed
        labels = [self.labels[i] for i in probs_batch.argmax(-1)]
        return labels, probs_batch


class Pipeline:
    def __init__(self, labels, device):
        self.head = ClassificationHead(labels, 128)
        self.head.to(device)

    def predict(self, encoded):
        output = self.head(encoded)
        return self.head.process_output(output)
