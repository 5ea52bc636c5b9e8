# devcheck bug corpus: DC117
# From: https://github.com/whai362/pan_pp.pytorch/issues/14
# The model is trained wrapped in DataParallel and saved with
# torch.save(model.state_dict()); the keys start with "module." and do not load
# into the bare model. Save model.module.state_dict().
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def save_checkpoint(net, optimizer, epoch, path):
    model = nn.DataParallel(net).cuda()
    state = {
        "epoch": epoch,
        "state_dict": model.module.state_dict(),  # <- fixed
        "optimizer": optimizer.state_dict(),
    }
    torch.save(state, path)
