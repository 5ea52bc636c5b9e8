import torch
x = torch.zeros(3)
x.cuda()
state = torch.load("m.pt")
with torch.cuda.amp.autocast(enabled=True):
    y = torch.cuda.FloatTensor(2, 3)
