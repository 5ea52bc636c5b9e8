# devcheck bug corpus: DC103
# From: https://github.com/mckinsey/causalnex/pull/135
# From: https://github.com/mckinsey/causalnex/commit/973261fcf534c552606d158f92b6767c7f9b5124
# NOTEARS structure learning with scipy's L-BFGS-B on a GPU: each step writes
# scipy's flat NumPy solution back into the model's parameters through a
# torch.from_numpy tensor, which lives on the host, so after the first step
# the DAG layer's weight has left the GPU and meets the input data there.
# Fixed by moving the tensor to the model's device before the copy.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import scipy.optimize as sopt
import torch
import torch.nn as nn


class NotearsMLP(nn.Module):
    def __init__(self, n_features, use_bias=False, use_gpu=True):
        super().__init__()
        avail_device = "cuda" if torch.cuda.is_available() and use_gpu else "cpu"
        self.device = torch.device(avail_device)
        self.dims = [n_features, 1]
        # dag_layer: initial linear layer
        self.dag_layer = nn.Linear(
            self.dims[0], self.dims[0] * self.dims[1], bias=use_bias
        ).float()
        self.dag_layer.to(self.device)  # send the DAG layer to the device
        nn.init.zeros_(self.dag_layer.weight)

    def forward(self, x):
        x = self.dag_layer(x)
        x = x.view(-1, self.dims[0], self.dims[1])
        return x.squeeze(dim=2)

    def _h_func(self):
        w = self.dag_layer.weight.view(self.dims[0], self.dims[0])
        return torch.trace(torch.matrix_exp(w * w)) - self.dims[0]

    def fit(self, X, rho=1.0, alpha=0.0):
        X = torch.from_numpy(X).float().to(self.device)
        params = list(self.parameters())

        def _get_flat_params(params):
            views = [p.data.view(-1) for p in params]
            return torch.cat(views, 0).cpu().detach().numpy()

        def _update_params_from_flat(params, flat_params):
            offset = 0
            flat_params_torch = (
                torch.from_numpy(flat_params)  # <- fixed
                .to(torch.get_default_dtype())
                .to(self.device)  # <- fixed
            )
            for p in params:
                n_params = p.numel()
                # view_as to avoid deprecated pointwise semantics
                p.data = flat_params_torch[offset: offset + n_params].view_as(p.data)
                offset += n_params

        def _func(flat_params):
            _update_params_from_flat(params, flat_params)
            for p in params:
                p.grad = None
            X_hat = self(X)
            loss = 0.5 * ((X_hat - X) ** 2).mean()
            h_val = self._h_func()
            loss = loss + 0.5 * rho * h_val * h_val + alpha * h_val
            loss.backward()
            grad = torch.cat([p.grad.view(-1) for p in params]).cpu().numpy()
            return loss.item(), grad.astype(np.float64)

        flat_params = _get_flat_params(params).astype(np.float64)
        sol = sopt.minimize(_func, flat_params, method="L-BFGS-B", jac=True)
        _update_params_from_flat(params, sol.x)
        return self


if __name__ == "__main__":
    data = np.random.rand(200, 5).astype(np.float32)
    model = NotearsMLP(n_features=5).fit(data)
    print(model.dag_layer.weight)
