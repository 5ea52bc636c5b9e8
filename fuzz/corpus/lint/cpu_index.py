import torch
import numpy as np

def f(x):
    a = x.to('cpu:0') + torch.ones(1, 2)
    b = x.to(torch.device('cpu', 0)) + torch.ones(1, 2)
    d = x.to('cuda:0') + torch.ones(1, 2)
    return a, b, d

def g(model, image):
    image = image.to(torch.device("cpu:0"))
    out = model(image)
    return np.asarray(out.numpy())
