# devcheck bug corpus: DC122
# From: https://github.com/bohaohuang/mrs/pull/47
# Resuming a segmentation run loaded the optimizer's saved state before the
# model was moved to the device; the state tensors stayed where they were
# loaded. The fix moved the model first (the PR moves the optimizer state to the
# device after resuming).
# Written for devcheck's tests after the thread; not the project's code.
import torch


def train_model(args, model, optm, device, resume_path=None):
    if resume_path:
        checkpoint = torch.load(resume_path, map_location="cpu")
        model.load_state_dict(checkpoint["state_dict"])
        optm.load_state_dict(checkpoint["opt_dict"])  # <- bug
    model.to(device)  # <- bug
    for epoch in range(args.epochs):
        optm.step()
