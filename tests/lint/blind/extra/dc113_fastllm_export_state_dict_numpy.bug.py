# devcheck bug corpus: DC113
# From: https://github.com/ztxz16/fastllm/issues/231
# fastllm's exporter writes a Hugging Face model's weights to its own format:
# `tofile(path, model)` walks `model.state_dict()` and calls `.numpy()` on
# each tensor. The Baichuan export script moved the model to the CPU first;
# a script that loaded the model onto the GPU and exported it failed with
# "can't convert cuda:0 device type tensor to numpy". The fix copies each
# tensor to the host before converting it.
# Written for devcheck's tests after the thread; not the project's code.
import struct

import numpy as np
import torch
from transformers import AutoModelForCausalLM


def tofile(export_path, model, dtype="float16"):
    state = model.state_dict()
    with open(export_path, "wb") as fo:
        fo.write(struct.pack("i", len(state)))
        for key in state:
            cur = state[key].numpy().astype(np.float16 if dtype == "float16" else np.float32)  # <- bug
            fo.write(struct.pack("i", len(key)))
            fo.write(key.encode())
            fo.write(struct.pack("i", len(cur.shape)))
            fo.write(cur.tobytes())


def main(model_path, export_path):
    model = AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=torch.float16)
    model = model.cuda().eval()
    tofile(export_path, model)
