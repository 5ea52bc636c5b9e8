# devcheck bug corpus: DC117
# From: https://github.com/dontLoveBugs/DORN_pytorch/issues/4
# DORN's training wrapped the model in DataParallel whenever CUDA was present
# and saved the wrapper's state dict; loading the checkpoint into the plain
# model on one GPU gave unexpected "module." keys.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def train(model, loader, output_dir, epoch):
    if torch.cuda.device_count() > 0:
        model = torch.nn.DataParallel(model)
    model = model.cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    for image, depth in loader:
        loss = (model(image.cuda()) - depth.cuda()).abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save({"epoch": epoch, "model": model.state_dict()}, output_dir + "/checkpoint.pth.tar")  # <- bug
