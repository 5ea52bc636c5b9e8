# devcheck bug corpus: DC105
# From: https://github.com/webdataset/webdataset/pull/408
# Fixed: the decoder loads .pth entries with map_location='cpu'; batches are
# moved to the device in the training process.
# Written for devcheck's tests after the thread; not the project's code.
import io
import os
import pickle

import torch
from torch.utils.data import DataLoader, IterableDataset

pytorch_weights_only = os.environ.get("WDS_PYTORCH_WEIGHTS_ONLY", "0") == "1"


def torch_loads(data: bytes):
    stream = io.BytesIO(data)
    return torch.load(stream, weights_only=pytorch_weights_only, map_location="cpu")  # <- fixed


decoders = {
    "txt": lambda data: data.decode("utf-8"),
    "cls": lambda data: int(data),
    "pyd": lambda data: pickle.loads(data),
    "pth": lambda data: torch_loads(data),
}


class Decoder:
    def __init__(self, handlers=None):
        self.handlers = handlers or decoders

    def __call__(self, sample):
        result = {}
        for key, value in sample.items():
            ext = key.rsplit(".", 1)[-1]
            result[key] = self.handlers[ext](value) if ext in self.handlers else value
        return result


class ShardDataset(IterableDataset):
    def __init__(self, shard_files, decoder=None):
        self.shard_files = shard_files
        self.decoder = decoder or Decoder()

    def __iter__(self):
        for shard in self.shard_files:
            with open(shard, "rb") as f:
                for sample in pickle.load(f):
                    yield self.decoder(sample)


def feature_batches(shard_files, batch_size=64):
    loader = DataLoader(ShardDataset(shard_files), batch_size=batch_size, num_workers=8)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    for batch in loader:
        yield batch["features.pth"].to(device), batch["label.cls"].to(device)
