# devcheck bug corpus: DC101
# From: https://github.com/torchfont/torchfont/pull/327
# Fixed: the location is sampled on the generator's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def random_location(axes, generator=None):
    n = len(axes)
    u = torch.rand(n, generator=generator, device=generator.device if generator is not None else None)  # <- fixed
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
