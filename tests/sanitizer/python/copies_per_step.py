# Copies a correct CUDA program makes once per tensor per step, and two real
# floods. Run under `devcheck run --fake-cuda=2`: only the two floods are
# "many small copies" findings (tests/sanitizer/run_fake_cuda_test.cc).
import io

import torch

device = torch.device("cuda")
torch.manual_seed(0)


def tiny():
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))


# A batch per step from a DataLoader, a tiny model between the copies.
data = torch.utils.data.TensorDataset(torch.randn(400, 3), torch.randint(0, 2, (400,)))
loader = torch.utils.data.DataLoader(data, batch_size=4)
model = tiny().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:  # 100 steps
    x, y = x.to(device), y.to(device)  # MARK:loader_copy
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()

# Slices of one host tensor, a minibatch per step.
inputs, targets = torch.randn(400, 3), torch.randint(0, 2, (400,))
for i in range(0, 400, 4):
    loss = torch.nn.functional.cross_entropy(model(inputs[i:i + 4].to(device)), targets[i:i + 4].to(device))
    loss.backward()
    optimizer.step()

# One call that moves many tensors once: a model of 300 small tensors.
deep = torch.nn.Sequential(*[torch.nn.Linear(2, 2) for _ in range(150)])
deep.to(device)  # MARK:module_to
deep_optimizer = torch.optim.Adam(deep.parameters())
deep(torch.ones(1, 2, device=device)).sum().backward()
deep_optimizer.step()

# A cuda state dict saved, loaded back onto the device and into the model;
# the optimizer's state too; every tensor's bytes read on the host.
buffer = io.BytesIO()
torch.save({"model": deep.state_dict(), "optimizer": deep_optimizer.state_dict()}, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu")
deep.load_state_dict(checkpoint["model"])
deep_optimizer.load_state_dict(checkpoint["optimizer"])
digest = [t.detach().cpu().numpy().tobytes() for t in deep.state_dict().values()]  # MARK:digest

# nn.DataParallel over the two fake GPUs: its broadcast, scatter and gather.
parallel = torch.nn.DataParallel(tiny().to(device))
parallel_optimizer = torch.optim.SGD(parallel.parameters(), lr=0.1)
for step in range(70):
    out = parallel(torch.randn(8, 3).to(device))  # MARK:parallel
    out.sum().backward()
    parallel_optimizer.step()

# The floods: per-sample copies of one batch, and a device tensor written
# element by element.
batch = torch.randn(100, 3)
samples = torch.stack([batch[i].to(device) for i in range(100)])  # MARK:flood_samples
filled = torch.zeros(100, device=device)
for i in range(100):
    filled[i] = torch.tensor(float(i))  # MARK:flood_fill
assert torch.equal(filled.cpu(), torch.arange(100.0))
print("copies", len(digest), samples.shape[0])
