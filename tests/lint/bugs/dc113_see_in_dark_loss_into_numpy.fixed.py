# devcheck bug corpus: DC113
# From: https://github.com/lavi135246/pytorch-Learning-to-See-in-the-Dark/issues/10
# The training script records each loss into a NumPy array, g_loss[ind] =
# loss.data; on CUDA that is a conversion of a GPU tensor: "can't convert
# cuda:0 device type tensor to numpy"; the fix is loss.cpu().data.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def train(model, opt, train_ids, load_pair, epochs):
    model = model.to(device)
    g_loss = np.zeros((5000, 1))
    for epoch in range(epochs):
        for ind in np.random.permutation(len(train_ids)):
            in_img, gt_img = load_pair(train_ids[ind])
            in_img = torch.from_numpy(in_img).permute(0, 3, 1, 2).to(device)
            gt_img = torch.from_numpy(gt_img).permute(0, 3, 1, 2).to(device)
            opt.zero_grad()
            out_img = model(in_img)
            loss = torch.abs(out_img - gt_img).mean()
            loss.backward()
            opt.step()
            g_loss[ind] = loss.cpu().data  # <- fixed
        print(epoch, np.mean(g_loss[np.where(g_loss)]))
