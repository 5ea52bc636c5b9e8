# devcheck bug corpus: DC120
# From: https://github.com/tfjgeorge/nngeometry/pull/105
# Fixed: each batch's inputs and targets are moved to the device the
# parameters are on before the Hessian is computed.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils.data import DataLoader, TensorDataset


class HessianBackend:
    def __init__(self, model, loss_fn):
        self.model = model
        self.loss_fn = loss_fn
        self.params = {k: p for k, p in model.named_parameters() if p.requires_grad}

    def _device(self):
        devices = {p.device for p in self.params.values()}
        if len(devices) != 1:
            raise ValueError("parameters on several devices")
        return devices.pop()

    def _loader(self, examples):
        if isinstance(examples, DataLoader):
            return examples
        return DataLoader(TensorDataset(*examples), batch_size=32)

    def hessian(self, examples):
        device = self._device()
        n = sum(p.numel() for p in self.params.values())
        H = torch.zeros((n, n), device=device)

        def loss(params, x, y):
            out = torch.func.functional_call(self.model, params, (x,))
            return self.loss_fn(out, y)

        loader = self._loader(examples)
        names = list(self.params)
        for batch in loader:
            inputs = batch[0].to(device)  # <- fixed
            h = torch.func.hessian(loss)(self.params, inputs, batch[1].to(device))  # <- fixed
            rows = [torch.cat([h[a][b].reshape(self.params[a].numel(), -1)
                               for b in names], dim=1) for a in names]
            H += torch.cat(rows, dim=0).detach()
        return H


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = torch.nn.Linear(4, 2).to(dev)
    xs, ys = torch.randn(64, 4), torch.randint(0, 2, (64,))
    backend = HessianBackend(net, torch.nn.functional.cross_entropy)
    print(backend.hessian((xs, ys)).shape)
