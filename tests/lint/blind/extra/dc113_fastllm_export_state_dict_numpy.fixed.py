# devcheck bug corpus: DC113
# From: https://github.com/ztxz16/fastllm/issues/231
# Fixed: each tensor is copied to the host before it is converted.
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
            cur = state[key].cpu().numpy().astype(np.float16 if dtype == "float16" else np.float32)  # <- fixed
            fo.write(struct.pack("i", len(key)))
            fo.write(key.encode())
            fo.write(struct.pack("i", len(cur.shape)))
            fo.write(cur.tobytes())


def main(model_path, export_path):
    model = AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=torch.float16)
    model = model.cuda().eval()
    tofile(export_path, model)
