import torch
model = torch.nn.Linear(1, 1).cuda()
for b0 in loader:
    y = model(b0)
    print(y.item())
for b1 in loader:
    y = model(b1)
    print(y.item())
for b2 in loader:
    y = model(b2)
    print(y.item())
for b3 in loader:
    y = model(b3)
    print(y.item())
for b4 in loader:
    y = model(b4)
    print(y.item())
for b5 in loader:
    y = model(b5)
    print(y.item())
for b6 in loader:
    y = model(b6)
    print(y.item())
for b7 in loader:
    y = model(b7)
    print(y.item())
for b8 in loader:
    y = model(b8)
    print(y.item())
for b9 in loader:
    y = model(b9)
    print(y.item())
for b10 in loader:
    y = model(b10)
    print(y.item())
for b11 in loader:
    y = model(b11)
    print(y.item())
for b12 in loader:
    y = model(b12)
    print(y.item())
for b13 in loader:
    y = model(b13)
    print(y.item())
for b14 in loader:
    y = model(b14)
    print(y.item())
for b15 in loader:
    y = model(b15)
    print(y.item())
for b16 in loader:
    y = model(b16)
    print(y.item())
for b17 in loader:
    y = model(b17)
    print(y.item())
for b18 in loader:
    y = model(b18)
    print(y.item())
for b19 in loader:
    y = model(b19)
    print(y.item())
for b20 in loader:
    y = model(b20)
    print(y.item())
for b21 in loader:
    y = model(b21)
    print(y.item())
for b22 in loader:
    y = model(b22)
    print(y.item())
for b23 in loader:
    y = model(b23)
    print(y.item())
for b24 in loader:
    y = model(b24)
    print(y.item())
for b25 in loader:
    y = model(b25)
    print(y.item())
for b26 in loader:
    y = model(b26)
    print(y.item())
for b27 in loader:
    y = model(b27)
    print(y.item())
for b28 in loader:
    y = model(b28)
    print(y.item())
for b29 in loader:
    y = model(b29)
    print(y.item())
for b30 in loader:
    y = model(b30)
    print(y.item())
for b31 in loader:
    y = model(b31)
    print(y.item())
for b32 in loader:
    y = model(b32)
    print(y.item())
for b33 in loader:
    y = model(b33)
    print(y.item())
for b34 in loader:
    y = model(b34)
    print(y.item())
for b35 in loader:
    y = model(b35)
    print(y.item())
for b36 in loader:
    y = model(b36)
    print(y.item())
for b37 in loader:
    y = model(b37)
    print(y.item())
for b38 in loader:
    y = model(b38)
    print(y.item())
for b39 in loader:
    y = model(b39)
    print(y.item())
if d0 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d1 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d2 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d3 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d4 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d5 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d6 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d7 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d8 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
if d9 == "cuda":
    z = torch.zeros(1).cuda() if c else torch.ones(1)
elif e:
    z = z.cuda()
