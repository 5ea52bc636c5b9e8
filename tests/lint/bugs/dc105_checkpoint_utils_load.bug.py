# devcheck bug corpus: DC105
# From: https://github.com/keunsoo-ko/CMT/issues/1
# The repository's utils._load reads the released checkpoint with
# torch.load(path) and the demo fails with "Attempting to deserialize object on
# a CUDA device".
# Written for devcheck's tests after the thread; not the project's code.
import torch


def _load(checkpoint_path):
    checkpoint = torch.load(checkpoint_path)  # <- bug
    return checkpoint


def load_checkpoint(path, model):
    checkpoint = _load(path)
    model.load_state_dict(checkpoint["state_dict"])
    return model
