# devcheck bug corpus: DC113
# From: https://github.com/havakv/pycox/pull/34
# The tests' shared check predicts with the model and converts the result with
# .numpy(); with the model on a GPU the conversion fails. The fix moves the
# output to the CPU first.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def assert_survs(input, model, device):
    model.net.to(device)
    with torch.no_grad():
        preds = model.net(input.to(device))
    surv = preds.numpy()  # <- bug
    assert surv.shape[0] == input.shape[0]
    return surv
