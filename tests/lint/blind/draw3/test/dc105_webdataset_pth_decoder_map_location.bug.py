# devcheck bug corpus: DC105
# From: https://github.com/webdataset/webdataset/pull/408
# WebDataset's automatic decoder turns a sample's ".pth" entries back into
# tensors with torch.load on the entry's bytes, without map_location. The
# datasets are read by DataLoader worker processes; an entry saved from a
# GPU (precomputed features, for instance) was rebuilt on that GPU inside
# each worker. The PR: "dataset is multithreaded, map_location other than
# cpu is not desired", and loads .pth entries to the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import io
import os
import pickle

import torch
from torch.utils.data import DataLoader, IterableDataset

pytorch_weights_only = os.environ.get("WDS_PYTORCH_WEIGHTS_ONLY", "0") == "1"


def torch_loads(data: bytes):
    stream = io.BytesIO(data)
    return torch.load(stream, weights_only=pytorch_weights_only)  # <- bug


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
