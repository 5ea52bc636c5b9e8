# devcheck bug corpus: DC105
# From: https://github.com/anhaidgroup/deepmatcher/pull/54
# The entity-matching model saves its state (the state dict and its training
# metadata, pickled with dill) with torch.save, and load_state read it back
# with torch.load(path, pickle_module=dill) and no map_location: a model
# trained on a CUDA device could not be loaded to run on the CPU. The pull
# request adds a map_location argument to load_state and passes it to
# torch.load.
# Written for devcheck's tests after the thread; not the project's code.
import copy

import dill
import six
import torch
import torch.nn as nn


class MatchingModel(nn.Module):
    def __init__(self, hidden_size=300):
        super().__init__()
        self.hidden_size = hidden_size
        self._train_buffers = set()
        self.classifier = nn.Sequential(nn.Linear(2 * hidden_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, 2))

    def _reset_embeddings(self, meta):
        self.embed = nn.Embedding(meta["vocab_size"], self.hidden_size)

    def initialize(self, train_info):
        self._reset_embeddings(train_info)

    def forward(self, left, right):
        return self.classifier(torch.cat([self.embed(left).mean(1), self.embed(right).mean(1)], dim=-1))

    def save_state(self, path, include_meta=True):
        state = {"model": self.state_dict()}
        for k in self._train_buffers:
            if include_meta or k != "state_meta":
                state[k] = getattr(self, k)
        torch.save(state, path, pickle_module=dill)

    def load_state(self, path):
        state = torch.load(path, pickle_module=dill)  # <- bug
        for k, v in six.iteritems(state):
            if k != "model":
                self._train_buffers.add(k)
                setattr(self, k, v)
        if hasattr(self, "state_meta"):
            train_info = copy.copy(self.state_meta)
            self.initialize(train_info)
        self.load_state_dict(state["model"])


if __name__ == "__main__":
    model = MatchingModel()
    model.load_state("hybrid_model.pth")
    model.eval()
    left = torch.randint(0, 100, (4, 12))
    right = torch.randint(0, 100, (4, 12))
    print(model(left, right).argmax(-1))
