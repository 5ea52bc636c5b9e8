# devcheck bug corpus: DC105
# From: https://github.com/HGU-DLLAB/Korean-FastSpeech2-Pytorch/issues/14
# Synthesis on a CPU-only machine: the FastSpeech2 checkpoint, saved from GPU
# training, was loaded with torch.load(path) and no map_location. The user
# solved it with torch.load(model, map_location=device).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def get_FastSpeech2(num, build):
    checkpoint_path = "ckpt/checkpoint_{}.pth.tar".format(num)
    model = nn.DataParallel(build())
    model.load_state_dict(torch.load(checkpoint_path)["model"])  # <- bug
    model.requires_grad = False
    model.eval()
    return model.to(device)
