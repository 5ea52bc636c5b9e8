# devcheck bug corpus: DC117
# From: https://github.com/meijieru/crnn.pytorch/issues/60
# crnn.pytorch trained with DataParallel over several GPUs and saved
# crnn.state_dict() of the wrapper; loading a saved model for prediction then
# failed: 'unexpected key "module.cnn.conv0.weight" in state_dict'.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def train(crnn, ngpu, loader, expr_dir):
    crnn = crnn.cuda()
    crnn = torch.nn.DataParallel(crnn, device_ids=range(ngpu))
    optimizer = torch.optim.Adam(crnn.parameters(), lr=1e-3)
    for i, (images, targets) in enumerate(loader):
        loss = crnn(images.cuda()).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        torch.save(crnn.module.state_dict(), "{0}/netCRNN_{1}.pth".format(expr_dir, i))  # <- fixed
