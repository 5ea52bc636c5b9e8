"""devcheck::rms_norm from real PyTorch: load the built library, compare the
op (forward and backward) with a reference made of torch ops, and, where
torch has it (2.4 on), with torch.nn.functional.rms_norm.

    python3 rms_norm_check.py path/to/libdevcheck_custom_op.so [cuda]

Prints one line per check; exits 1 at the first mismatch."""
import sys

import torch


def reference(x, weight, eps):
    xf = x.double()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.double()
    return y.to(x.dtype)


def tolerances(dtype):
    return {torch.float64: (1e-10, 1e-10), torch.float32: (1e-5, 1e-5),
            torch.bfloat16: (2e-2, 2e-2), torch.float16: (2e-3, 2e-3)}[dtype]


def check(name, got, want, dtype):
    rtol, atol = tolerances(dtype)
    if got.shape != want.shape or got.dtype != want.dtype:
        print(f"FAIL {name}: got {tuple(got.shape)} {got.dtype}, want {tuple(want.shape)} {want.dtype}")
        sys.exit(1)
    if not torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol):
        diff = (got.double() - want.double()).abs().max().item()
        print(f"FAIL {name}: largest difference {diff:g} (rtol {rtol:g}, atol {atol:g})")
        sys.exit(1)
    print(f"PASS {name}")


def run(device, dtypes):
    torch.manual_seed(0)
    eps = 1e-6
    for dtype in dtypes:
        for shape in [(0, 8), (1, 1), (3, 7), (5, 33), (2, 3, 17), (16, 1024)]:
            x = torch.randn(shape, dtype=torch.float64).to(device=device, dtype=dtype)
            w = torch.randn(shape[-1], dtype=torch.float64).to(device=device, dtype=dtype)
            grad = torch.randn(shape, dtype=torch.float64).to(device=device, dtype=dtype)
            name = f"{device} {str(dtype).replace('torch.', '')} {list(shape)}"

            xa, wa = x.clone().requires_grad_(), w.clone().requires_grad_()
            y = torch.ops.devcheck.rms_norm(xa, wa, eps)
            y.backward(grad)
            xr, wr = x.double().requires_grad_(), w.double().requires_grad_()
            yr = reference(xr, wr, eps)
            yr.backward(grad.double())
            check(f"forward {name}", y, yr.to(dtype), dtype)
            check(f"grad x {name}", xa.grad, xr.grad.to(dtype), dtype)
            # grad_weight sums over rows: its error grows with their number.
            check(f"grad weight {name}", wa.grad, wr.grad.to(dtype), dtype)

            if hasattr(torch.nn.functional, "rms_norm"):
                want = torch.nn.functional.rms_norm(x.double(), (shape[-1],), w.double(), eps)
                check(f"vs torch.nn.functional.rms_norm {name}", y.detach(), want.to(dtype), dtype)


def main():
    torch.ops.load_library(sys.argv[1])
    device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    print(f"torch {torch.__version__}; F.rms_norm: {hasattr(torch.nn.functional, 'rms_norm')}")
    dtypes = [torch.float64, torch.float32, torch.bfloat16]
    if device != "cpu":
        dtypes.append(torch.float16)
    run(device, dtypes)
    # Mixed devices are refused by name.
    x = torch.ones(2, 3, device=device)
    try:
        torch.ops.devcheck.rms_norm(x, torch.ones(3, device="meta"), 1e-6)
    except RuntimeError as e:
        message = str(e)
        needed = ["devcheck::rms_norm", "'weight'", "'x'", "meta", str(x.device)]
        missing = [n for n in needed if n not in message]
        if missing:
            print(f"FAIL mixed devices: the error lacks {missing}: {message}")
            sys.exit(1)
        print("PASS mixed devices refused by name")
    else:
        print("FAIL mixed devices: no error")
        sys.exit(1)


if __name__ == "__main__":
    main()
