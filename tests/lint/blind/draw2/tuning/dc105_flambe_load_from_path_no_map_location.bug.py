# devcheck bug corpus: DC105
# From: https://github.com/asappresearch/flambe/pull/101
# Flambe's serialization functions take a map_location and hand it to
# torch.load, but Component.load_from_path, the way users load a saved
# component, called them without one. A model trained and saved on a GPU
# could not be loaded into a config that runs on the CPU: its tensors were
# deserialized onto CUDA. The pull request exposes map_location on
# load_from_path and passes it down.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.nn as nn

STATE_FILE_NAME = "state.pt"


def load_state_from_file(path, map_location=None):
    return torch.load(os.path.join(path, STATE_FILE_NAME), map_location)


def flambe_load(path, map_location=None):
    state = load_state_from_file(path, map_location)
    instance = TextClassifier(**state.pop("_config"))
    instance.load_state_dict(state)
    return instance


class Component(nn.Module):
    def save(self, path, **config):
        os.makedirs(path, exist_ok=True)
        state = dict(self.state_dict())
        state["_config"] = config
        torch.save(state, os.path.join(path, STATE_FILE_NAME))

    @classmethod
    def load_from_path(cls, path, use_saved_config_defaults=True, **kwargs):
        if use_saved_config_defaults:
            instance = flambe_load(path)  # <- bug
        else:
            loaded_state = load_state_from_file(path)  # <- bug
            loaded_state.pop("_config", None)
            instance = cls(**kwargs)
            instance.load_state_dict(loaded_state)
        return instance


class TextClassifier(Component):
    def __init__(self, vocab_size=1000, dim=64, n_classes=2):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, dim)
        self.out = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        return self.out(self.embedding(tokens))


def evaluate_on_cpu(path, tokens):
    model = TextClassifier.load_from_path(path)  # <- bug
    model.eval()
    with torch.no_grad():
        return model(tokens).argmax(-1)
