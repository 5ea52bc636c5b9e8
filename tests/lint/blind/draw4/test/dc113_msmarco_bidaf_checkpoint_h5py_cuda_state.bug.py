# devcheck bug corpus: DC113
# From: https://github.com/microsoft/MSMARCO-Question-Answering/pull/6
# From: https://github.com/microsoft/MSMARCO-Question-Answering/commit/a3daf5ac39857375e5ae76d6876014af5505621f
# The BiDAF baseline trains on the GPU (model.cuda() when CUDA is asked for) and
# checkpoints after every epoch by writing each tensor of model.state_dict() into an
# HDF5 file; h5py turns the CUDA tensors into NumPy arrays and fails with
# "can't convert CUDA tensor to numpy".
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import h5py
import torch
import yaml

from mrcqa import BidafModel
from dataset import load_data


def save_params(destination, path, params):
    if path not in destination:
        destination.create_dataset(path, data=params, compression="gzip")
    else:
        destination[path][...] = params


def save_model(model, destination):
    if "model" not in destination:
        destination.create_group("model")
    for name, value in model.state_dict().items():  # <- bug
        save_params(destination, "model/" + name, value)


def checkpoint(model, epoch, optimizer, dest, exp_folder):
    save_model(model, dest)
    if "training" not in dest:
        dest.create_dataset("training/epoch", data=epoch)
    else:
        dest["training/epoch"][()] = epoch
    torch.save(optimizer.state_dict(), os.path.join(exp_folder, "checkpoint.opt"))


def init_state(config, args):
    data, id_to_token, id_to_char = load_data(args.data, config)
    model = BidafModel.from_config(config["bidaf"], id_to_token, id_to_char)
    if torch.cuda.is_available() and args.cuda:
        model.cuda()
    model.train()
    optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()))
    return model, optimizer, data


def train(model, optimizer, data):
    for qids, passages, queries, answers, _ in data:
        start, end = model(passages[:2], passages[2], queries[:2], queries[2])
        loss = model.get_loss(start, end, answers[:, 0], answers[:, 1])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("exp_folder")
    parser.add_argument("data")
    parser.add_argument("--cuda", type=bool, default=torch.cuda.is_available())
    args = parser.parse_args()
    with open(os.path.join(args.exp_folder, "config.yaml")) as f:
        config = yaml.safe_load(f)

    model, optimizer, data = init_state(config, args)
    ckpt = h5py.File(os.path.join(args.exp_folder, "checkpoint"), "a")
    if torch.cuda.is_available() and args.cuda:
        data.tensor_type = torch.cuda.LongTensor
    for epoch in range(config["training"]["epochs"]):
        train(model, optimizer, data)
        checkpoint(model, epoch, optimizer, ckpt, args.exp_folder)


if __name__ == "__main__":
    main()
