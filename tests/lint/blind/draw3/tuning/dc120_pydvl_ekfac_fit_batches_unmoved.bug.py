# devcheck bug corpus: DC120
# From: https://github.com/aai-institute/pyDVL/issues/569
# Fitting pyDVL's EK-FAC influence model with a model on "cuda" failed with
# tensors on different devices: the passes that accumulate the K-FAC factors
# over the training DataLoader handed each batch's inputs to the model as the
# loader yields them, on the CPU. The fix (pull request #570) moves x to the
# model's device in those loops.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def empirical_cross_entropy_loss_fn(logits):
    probs = torch.softmax(logits, dim=-1)
    sampled = torch.multinomial(probs.detach(), 1).squeeze(-1)
    return nn.functional.cross_entropy(logits, sampled, reduction="sum")


class EkfacInfluence:
    def __init__(self, model: nn.Module, hessian_regularization: float = 0.0):
        self.model = model
        self.hessian_regularization = hessian_regularization
        self.active_layers = {n: m for n, m in model.named_modules() if isinstance(m, nn.Linear)}

    @property
    def model_device(self):
        return next(self.model.parameters()).device

    def _get_kfac_blocks(self, data: DataLoader):
        forward_x, grad_y, hooks = {}, {}, []
        for name, layer in self.active_layers.items():
            forward_x[name] = torch.zeros(layer.in_features, layer.in_features, device=self.model_device)
            grad_y[name] = torch.zeros(layer.out_features, layer.out_features, device=self.model_device)

            def fwd(m, inp, out, name=name):
                forward_x[name] += inp[0].T @ inp[0]

            def bwd(m, gin, gout, name=name):
                grad_y[name] += gout[0].T @ gout[0]

            hooks.append(layer.register_forward_hook(fwd))
            hooks.append(layer.register_full_backward_hook(bwd))
        data_len = 0
        for x, _ in data:
            data_len += x.shape[0]
            pred_y = self.model(x)  # <- bug
            loss = empirical_cross_entropy_loss_fn(pred_y)
            loss.backward()
        for h in hooks:
            h.remove()
        return {n: (forward_x[n] / data_len, grad_y[n] / data_len) for n in self.active_layers}

    def fit(self, data: DataLoader):
        self.kfac_blocks = self._get_kfac_blocks(data)
        return self


if __name__ == "__main__":
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3)).to("cuda")
    xs, ys = torch.randn(256, 10), torch.randint(0, 3, (256,))
    loader = DataLoader(list(zip(xs, ys)), batch_size=32)
    EkfacInfluence(model).fit(loader)
