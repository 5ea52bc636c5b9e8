# devcheck bug corpus: DC101
# From: https://github.com/nicola-decao/s-vae-pytorch/pull/4
# A von Mises-Fisher distribution of the file keeps its location and
# concentration, which an encoder on the GPU gives it. Its rejection sampler
# made its Beta and uniform draws from tensors made without a device, on the
# CPU, and combined them with the concentration on the GPU: the sampler
# failed when the parameters were CUDA tensors. The fix passes the
# parameters' device to the tensors the sampler makes.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class VonMisesFisher(torch.distributions.Distribution):
    arg_constraints = {}
    has_rsample = True

    def __init__(self, loc, scale):
        self.loc = loc
        self.scale = scale
        self.dtype = loc.dtype
        self.__m = loc.shape[-1]
        super().__init__(validate_args=False)

    def _sample_w_rej(self, shape):
        c = torch.sqrt(4 * self.scale ** 2 + (self.__m - 1) ** 2)
        b = (-2 * self.scale + c) / (self.__m - 1)
        a = (self.__m - 1 + 2 * self.scale + c) / 4
        d = (4 * a * b) / (1 + b) - (self.__m - 1) * torch.log(torch.tensor(float(self.__m - 1)))
        concentration = torch.tensor((self.__m - 1) / 2, dtype=self.dtype)  # <- bug
        beta = torch.distributions.Beta(concentration, concentration)
        e = beta.sample(shape + self.scale.shape)
        u = torch.rand(shape + self.scale.shape, dtype=self.dtype)  # <- bug
        w = (1 - (1 + b) * e) / (1 - (1 - b) * e)
        t = (2 * a * b) / (1 - (1 - b) * e)
        accept = ((self.__m - 1) * torch.log(t) - t + d) > torch.log(u)
        return torch.where(accept, w, torch.zeros_like(w))


class Encoder(nn.Module):
    def __init__(self, dim=3):
        super().__init__()
        self.mean = nn.Linear(16, dim)
        self.var = nn.Linear(16, 1)

    def forward(self, x):
        mean = self.mean(x)
        mean = mean / mean.norm(dim=-1, keepdim=True)
        return mean, nn.functional.softplus(self.var(x)) + 1


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = Encoder().to(device)
    loc, scale = encoder(torch.randn(4, 16, device=device))
    q_z = VonMisesFisher(loc, scale)
    print(q_z._sample_w_rej(torch.Size([2])).shape)


if __name__ == "__main__":
    main()
