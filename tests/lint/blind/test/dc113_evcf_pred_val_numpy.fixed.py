# devcheck bug corpus: DC113
# From: https://github.com/psywaves/EVCF/issues/1
# A recommender's evaluation turned the model's predictions (on the GPU) into a
# NumPy array with np.array(pred_val): "can't convert cuda:0 device type tensor
# to numpy. Use Tensor.cpu()". The fix copied them to the host first.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def ndcg_at_k(pred, heldout, k):
    idx = np.argsort(-pred, axis=1)[:, :k]
    return (heldout[np.arange(len(heldout))[:, None], idx]).sum(1).mean()


def evaluate(model, data, device):
    model.eval()
    x = torch.FloatTensor(data).to(device)
    with torch.no_grad():
        pred_val = model(x)
    pred_val = pred_val.cpu().numpy()  # <- fixed
    return ndcg_at_k(pred_val, data, 100)
