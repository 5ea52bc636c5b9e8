# devcheck bug corpus: DC101
# From: https://github.com/torchfont/torchfont/pull/327
# A font transform samples random variation-axis locations with a
# torch.Generator the caller passes. torch.rand(...) was called with that
# generator and no device, so it made its tensor on the CPU; a CUDA
# generator then failed ("Expected a 'cpu' device type for generator but
# found 'cuda'"). The fix samples on the generator's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def random_location(axes, generator=None):
    n = len(axes)
    u = torch.rand(n, generator=generator)  # <- bug
    lows = torch.tensor([a[0] for a in axes], device=u.device)
    highs = torch.tensor([a[1] for a in axes], device=u.device)
    return lows + u * (highs - lows)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    gen = torch.Generator(device=device)
    gen.manual_seed(0)
    axes = [(100.0, 900.0), (50.0, 200.0)]
    print(random_location(axes, generator=gen))


if __name__ == "__main__":
    main()
