# devcheck bug corpus: DC105
# From: https://github.com/jiesutd/LatticeLSTM/pull/15
# The NER tagger is trained on a GPU when one is available and saves its
# state dict; decoding with --status decode on a machine without CUDA loaded
# that file with torch.load(model_dir) and no map_location, which fails to
# deserialize the CUDA tensors. The pull request's fix loads with a
# map_location that keeps the storages on the CPU when no GPU is used (its
# first try had put map_location on load_state_dict instead of torch.load).
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class SeqModel(nn.Module):
    def __init__(self, vocab_size, num_labels, gpu):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, 50)
        self.lstm = nn.LSTM(50, 100, batch_first=True, bidirectional=True)
        self.hidden2tag = nn.Linear(200, num_labels)
        if gpu:
            self.cuda()

    def forward(self, words):
        out, _ = self.lstm(self.embedding(words))
        return self.hidden2tag(out).argmax(-1)


def batchify(instances, gpu):
    words = torch.tensor([inst[0] for inst in instances], dtype=torch.long)
    if gpu:
        words = words.cuda()
    return words


def train(data, model_name, gpu):
    model = SeqModel(data["vocab_size"], data["num_labels"], gpu)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.015)
    # ... training epochs ...
    torch.save(model.state_dict(), model_name)


def load_model_decode(model_dir, data, name, gpu):
    print("Load Model from file: ", model_dir)
    model = SeqModel(data["vocab_size"], data["num_labels"], gpu)
    model.load_state_dict(torch.load(model_dir))  # <- bug
    print("Decode %s data ..." % name)
    model.eval()
    with torch.no_grad():
        return [model(batchify(batch, gpu)).tolist() for batch in data[name]]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--status", choices=["train", "decode"], default="train")
    parser.add_argument("--savemodel", default="data/model/saved_model.lstmcrf.")
    parser.add_argument("--loadmodel")
    args = parser.parse_args()
    gpu = torch.cuda.is_available()
    data = {"vocab_size": 5000, "num_labels": 20, "raw": []}
    if args.status == "train":
        train(data, args.savemodel + "model", gpu)
    else:
        load_model_decode(args.loadmodel, data, "raw", gpu)
