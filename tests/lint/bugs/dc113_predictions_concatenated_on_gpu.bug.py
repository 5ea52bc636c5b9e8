# devcheck bug corpus: DC113
# From: https://github.com/motefly/DeepGBM/issues/4
# The evaluation helper collects each batch's outputs (on the GPU) in a list
# and joins them with np.concatenate, which converts each CUDA tensor: "can't
# convert CUDA tensor to numpy"; the fix adds .cpu() to the outputs.
# Written for devcheck's tests after the thread; not the project's code.
import math
import numpy as np
import torch


def eval_testset(test_x, test_y, model, test_batch_size, device):
    test_len = test_x.shape[0]
    y_preds = []
    model.eval()
    with torch.no_grad():
        for jdx in range(math.ceil(test_len / test_batch_size)):
            start = jdx * test_batch_size
            end = min(test_len, start + test_batch_size)
            inputs = torch.from_numpy(test_x[start:end].astype(np.float32)).to(device)
            outputs = model(inputs)
            y_preds.append(outputs)  # <- bug
    return np.concatenate(y_preds, 0)  # <- bug
