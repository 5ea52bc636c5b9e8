# devcheck bug corpus: DC105
# From: https://github.com/pytorch/examples/pull/935
# word_language_model/generate.py loads a model trained with CUDA with
# torch.load(f) and fails on a machine without CUDA; the fix passes
# map_location=device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", default="./model.pt")
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
device = torch.device("cuda" if args.cuda else "cpu")

with open(args.checkpoint, "rb") as f:
    model = torch.load(f).to(device)  # <- bug
model.eval()
