"""Fake CUDA in float16, scenario by scenario (each in a process of its own;
the exit status says whether it held), run like fake_cuda_scenarios.py:

    python fake_cuda_fp16.py SCENARIO [--via package|module|env] [--lib PATH]

  autocast_lists  every op of the running torch's own autocast test lists
                  (torch/testing/_internal/autocast_test_lists.py, the lists
                  test_cuda.py holds CUDA's autocast to) under
                  torch.autocast("cuda", torch.float16): PyTorch's checks
                  (output dtype, torch.* equals Tensor.*, bitwise equal to
                  casting by hand) plus values and gradients close to a
                  float32 CPU reference, and the banned op's message
  half_paths      float16 ops with CUDA-only paths (softmax/log_softmax into
                  float32 and their backward, norms, attention, matmuls,
                  convolutions, pooling, losses), forward and backward, close
                  to float32 on the CPU
  gpt_fp16        a small GPT trained with autocast float16 and GradScaler:
                  every loss close to a float32 CPU run that skips the same
                  steps, finite losses, steps taken and skipped as the scale
                  says; and the same model in .half()

Run by tests/sanitizer/run_fake_cuda_test.cc under devcheck run --fake-cuda
and by python/tests/test_fake_cuda.py through the package.
"""

import copy
import math
import os
import sys
import types
import unittest

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_cuda_scenarios import TORCH2, error_of, turn_on  # noqa: E402

FP16_TOL = 2e-2  # float16 results against float32: a few float16 ulps of the largest value
FP32_TOL = 1e-4  # float32 results computed from the same float16 inputs


def autocast_test_lists():
    """The running torch's AutocastTestLists. Its module takes TEST_WITH_ROCM
    and TestCase from common_utils, which Debian's 1.13 cannot import (it
    needs expecttest) and which in 2.x parses the command line and sets
    global flags when imported: a stand-in gives those two."""
    name = "torch.testing._internal.common_utils"
    if name not in sys.modules:
        stand_in = types.ModuleType(name)
        stand_in.TEST_WITH_ROCM = False
        stand_in.TestCase = unittest.TestCase
        sys.modules[name] = stand_in
    from torch.testing._internal.autocast_test_lists import AutocastTestLists

    return AutocastTestLists


def cast(value, dtype):
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(cast(v, dtype) for v in value)
    return value


def on_cpu(value):
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (list, tuple)):
        return type(value)(on_cpu(v) for v in value)
    return value


def tensors_of(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_of(v)]
    return []


def assert_close(got, want, tol, what):
    """got (any device, any float dtype) within tol of want, relative to
    want's largest magnitude (at least 1)."""
    got = got.detach().cpu().float()
    want = want.detach().cpu().float()
    assert got.shape == want.shape, "%s: shape %s, reference %s" % (what, tuple(got.shape), tuple(want.shape))
    if want.numel() == 0:
        return
    finite = want[torch.isfinite(want)]
    scale = max(1.0, finite.abs().max().item()) if finite.numel() else 1.0
    ok = torch.isclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True)
    assert bool(ok.all()), "%s: max error %g, allowed %g (values %s, reference %s)" % (
        what, (got - want).abs().nan_to_num(0.0).max().item(), tol * scale, got.flatten()[:6].tolist(),
        want.flatten()[:6].tolist())


def compare(first, second):
    if isinstance(first, torch.Tensor):
        return torch.equal(first, second)
    if isinstance(first, (list, tuple)):
        return all(compare(f, s) for f, s in zip(first, second))
    return first == second


# The CPU has no cuDNN: its reference for cuDNN's convolutions is the
# convolution they name (bias-less).
CPU_STAND_INS = {
    "cudnn_convolution": lambda x, w, padding, stride, dilation, groups, *flags: torch.convolution(
        x, w, None, stride, padding, dilation, False, [0] * len(padding), groups),
    "cudnn_convolution_transpose": lambda x, w, padding, output_padding, stride, dilation, groups, *flags: (
        torch.convolution(x, w, None, stride, padding, dilation, True, output_padding, groups)),
}


def call(module, op, args, kwargs):
    if op in CPU_STAND_INS and all(t.device.type == "cpu" for t in tensors_of(args)):
        return CPU_STAND_INS[op](*args, **kwargs)
    if module is not None and hasattr(module, op):
        return getattr(module, op)(*args, **kwargs)
    return getattr(args[0], op)(*args[1:], **kwargs)


def leaves(args):
    """args with every floating tensor a fresh leaf that wants a gradient."""
    if isinstance(args, torch.Tensor):
        return args.detach().clone().requires_grad_() if args.is_floating_point() else args
    if isinstance(args, (list, tuple)):
        return type(args)(leaves(a) for a in args)
    return args


def backward_of(module, op, args, kwargs, autocast):
    """The gradients of sum(outputs) with respect to args' floating tensors;
    None where the op has no derivative (on the CPU too: checked by the caller)."""
    args = leaves(args)
    with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
        out = call(module, op, args, kwargs)
    outs = [t for t in tensors_of(out) if t.is_floating_point() and t.requires_grad]
    inputs = [t for t in tensors_of(args) if t.requires_grad]
    if not outs or not inputs:
        return None
    total = sum(t.float().sum() for t in outs)
    grads = torch.autograd.grad(total, inputs, allow_unused=True)
    return [g if g is not None else torch.zeros_like(i) for g, i in zip(grads, inputs)]


def run_autocast_entry(list_name, op, args, kwargs, run_as, module, out_type=None):
    """One entry the way test_cuda.py's _run_autocast_outofplace runs it,
    then against float32 on the CPU. Returns what it checked."""
    out_type = out_type or run_as
    what = "%s %s" % (list_name, op)
    with torch.autocast("cuda", dtype=torch.float16):
        output = output_method = None
        if module is not None and hasattr(module, op):
            output = getattr(module, op)(*args, **kwargs)
            if isinstance(output, torch.Tensor):
                assert output.dtype == out_type, "%s produced %s, should produce %s" % (what, output.dtype, out_type)
                assert output.device.type == "cuda", what
        if hasattr(torch.Tensor, op):
            output_method = getattr(args[0], op)(*args[1:], **kwargs)
            if isinstance(output_method, torch.Tensor):
                assert output_method.dtype == out_type, "%s (Tensor.%s) produced %s" % (what, op, output_method.dtype)
        assert output is not None or output_method is not None, "%s: not found" % what
        if output is not None and output_method is not None:
            assert type(output) is type(output_method) and compare(output, output_method), (
                "%s: torch.%s and Tensor.%s differ" % (what, op, op))
        result = output if output is not None else output_method
        with torch.autocast("cuda", enabled=False):
            if module is not None and hasattr(module, op):
                control = getattr(module, op)(*cast(args, run_as), **kwargs)
            else:
                control = getattr(args[0].to(run_as), op)(*cast(args[1:], run_as), **kwargs)
        assert type(result) is type(control) and compare(result, control), "%s: differs from casting by hand" % what

    # float32 on the CPU: the values an exact computation gives
    reference = call(module, op, cast(on_cpu(args), torch.float32), kwargs)
    got_tensors, want_tensors = tensors_of(result), tensors_of(reference)
    assert len(got_tensors) == len(want_tensors), what
    if not got_tensors:
        assert result == reference, "%s: %r, reference %r" % (what, result, reference)
    for got, want in zip(got_tensors, want_tensors):
        if got.is_floating_point():
            assert_close(got, want, FP16_TOL if got.dtype == torch.float16 else FP32_TOL, what)
        else:
            assert torch.equal(got.cpu(), want), what

    try:
        want_grads = backward_of(module, op, cast(on_cpu(args), torch.float32), kwargs, autocast=False)
    except RuntimeError as e:
        # no derivative on the CPU either: then fake CUDA must say the same
        message = error_of(lambda: backward_of(module, op, args, kwargs, autocast=True), RuntimeError)
        assert message == str(e), "%s backward: %r, the CPU's %r" % (what, message, str(e))
        return "no derivative, as on the CPU"
    got_grads = backward_of(module, op, args, kwargs, autocast=True)
    if want_grads is None:
        assert not any(t.is_floating_point() for t in got_tensors), "%s: a float result without gradients" % what
        return "no float result"
    for i, (got, want) in enumerate(zip(got_grads, want_grads)):
        assert got.device.type == "cuda", what
        assert_close(got, want, FP16_TOL, "%s gradient %d" % (what, i))
    return "forward and backward"


def autocast_lists():
    """Every entry of the running torch's CUDA autocast lists."""
    torch.manual_seed(0)
    lists = autocast_test_lists()(torch.device("cuda"))
    checked = {}
    # (list, the dtype autocast runs it in, the module test_cuda.py calls it from)
    plans = [("torch_fp16", torch.float16, torch), ("torch_fp32", torch.float32, torch),
             ("torch_need_autocast_promote", torch.float32, torch), ("nn_fp16", torch.float16, torch._C._nn),
             ("nn_fp32", torch.float32, torch._C._nn), ("linalg_fp16", torch.float16, torch._C._linalg),
             ("methods_fp16", torch.float16, None), ("methods_fp32", torch.float32, None)]
    for list_name, run_as, module in plans:
        for entry in getattr(lists, list_name):
            op, args = entry[0], entry[1]
            kwargs = {}
            if len(entry) == 3:
                if list_name == "torch_fp16":
                    # test_cuda.py: a third element of torch_fp16 says "skip"
                    # (ROCm's cuDNN; einsum's, whose arguments are in it)
                    if entry[2]:
                        continue
                else:
                    kwargs = entry[2]
            checked["%s %s %d" % (list_name, op, len(checked))] = run_autocast_entry(
                list_name, op, args, kwargs, run_as, module)
    for list_name, module in (("torch_expect_builtin_promote", torch), ("methods_expect_builtin_promote", None)):
        for op, args, out_type in getattr(lists, list_name):
            checked["%s %s %d" % (list_name, op, len(checked))] = run_autocast_entry(
                list_name, op, args, {}, torch.float32, module, out_type)
    # an op autocast refuses, in the GPU's words
    for op, args, module in lists.banned:
        with torch.autocast("cuda", dtype=torch.float16):
            message = error_of(lambda: getattr(module, op)(*args), RuntimeError)
        assert "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast" in message, (
            message)
    # einsum, which test_cuda.py skips by accident, with arguments that fit
    a, b = torch.randn(4, 3, device="cuda"), torch.randn(3, 5, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        product = torch.einsum("ij,jk->ik", a, b)
    assert product.dtype == torch.float16
    assert_close(product, a.cpu() @ b.cpu(), FP16_TOL, "einsum")
    # 1.13's lists hold 116 entries, later ones more
    assert len(checked) >= 116, len(checked)
    kinds = sorted(set(checked.values()))
    print("autocast lists ok: %d entries (%s)" % (
        len(checked), ", ".join("%s: %d" % (k, list(checked.values()).count(k)) for k in kinds)))


def check_half(name, f, *inputs, tol=FP16_TOL):
    """f on float16 cuda tensors against f on their float32 CPU copies:
    values and the gradients of every floating input."""
    half = [x.detach().to("cuda", torch.float16).requires_grad_(x.is_floating_point()) for x in inputs]
    ref = [x.detach().to(torch.float16).float().requires_grad_(x.is_floating_point()) for x in inputs]
    got, want = f(*half), f(*ref)
    assert got.device.type == "cuda", name
    assert_close(got, want, tol, name)
    weight = torch.randn(want.shape)
    (got.float() * weight.to("cuda")).sum().backward()
    (want.float() * weight).sum().backward()
    for i, (h, r) in enumerate(zip(half, ref)):
        if r.grad is not None:
            assert h.grad is not None and h.grad.dtype == torch.float16, "%s gradient %d" % (name, i)
            assert_close(h.grad, r.grad, FP16_TOL, "%s gradient %d" % (name, i))
    return got


def half_paths():
    """float16 ops a GPU runs, forward and backward, against float32."""
    torch.manual_seed(0)
    x = torch.randn(4, 6, 10)

    # softmax and log_softmax into float32 (CUDA's half-to-float path)
    for fn in (torch.softmax, torch.log_softmax):
        out = check_half(fn.__name__, lambda t: fn(t, -1, dtype=torch.float32), x, tol=FP32_TOL)
        assert out.dtype == torch.float32, out.dtype
        assert check_half(fn.__name__ + " half", lambda t: fn(t, 1), x).dtype == torch.float16
    with torch.autocast("cuda", dtype=torch.float16):
        scores = torch.randn(2, 5, 5, device="cuda").half()
        assert F.softmax(scores, -1).dtype == torch.float32
        assert F.log_softmax(scores, -1).dtype == torch.float32

    # norms
    ln_w, ln_b = torch.randn(10), torch.randn(10)
    check_half("layer_norm", lambda t, w, b: F.layer_norm(t, (10,), w, b), x, ln_w, ln_b)
    check_half("group_norm", lambda t, w, b: F.group_norm(t, 2, w, b), x, torch.randn(6), torch.randn(6))
    images = torch.randn(2, 3, 8, 8)
    check_half("batch_norm", lambda t, w, b: F.batch_norm(t, None, None, w, b, training=True), images,
               torch.rand(3) + 0.5, torch.randn(3))

    # matmuls
    m1, m2, m3 = torch.randn(5, 7), torch.randn(7, 3), torch.randn(5, 3)
    check_half("addmm", torch.addmm, m3, m1, m2)
    check_half("mm", torch.mm, m1, m2)
    check_half("linear", F.linear, m1, torch.randn(3, 7), torch.randn(3))
    b1, b2, b3 = torch.randn(2, 5, 7), torch.randn(2, 7, 3), torch.randn(2, 5, 3)
    check_half("bmm", torch.bmm, b1, b2)
    check_half("baddbmm", lambda c, p, q: torch.baddbmm(c, p, q, beta=0.5, alpha=2.0), b3, b1, b2)
    check_half("matmul", torch.matmul, torch.randn(2, 3, 5, 7), torch.randn(7, 4))

    # attention: the math a GPT block writes, and torch's own where it has it
    q, k, v = torch.randn(2, 2, 6, 4), torch.randn(2, 2, 6, 4), torch.randn(2, 2, 6, 4)
    mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))

    def attention(q, k, v):
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(~mask.to(att.device), float("-inf"))
        return F.softmax(att, dim=-1) @ v

    check_half("attention", attention, q, k, v)
    if hasattr(F, "scaled_dot_product_attention"):
        check_half("scaled_dot_product_attention",
                   lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, k, v)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    mha_half = copy.deepcopy(mha).cuda().half()
    seq = torch.randn(2, 5, 8)
    got, _ = mha_half(*(seq.cuda().half(),) * 3)
    want, _ = mha(*(seq.half().float(),) * 3)
    assert_close(got, want, FP16_TOL, "MultiheadAttention")

    # convolutions and pooling
    check_half("conv2d", lambda t, w, b: F.conv2d(t, w, b, padding=1), images, torch.randn(4, 3, 3, 3),
               torch.randn(4))
    check_half("conv_transpose2d", lambda t, w: F.conv_transpose2d(t, w, stride=2), images, torch.randn(3, 2, 3, 3))
    check_half("conv1d", F.conv1d, torch.randn(2, 3, 9), torch.randn(4, 3, 3))
    check_half("max_pool2d", lambda t: F.max_pool2d(t, 2), images)
    check_half("avg_pool2d", lambda t: F.avg_pool2d(t, 2), images)
    check_half("adaptive_avg_pool2d", lambda t: F.adaptive_avg_pool2d(t, 3), images)
    check_half("adaptive_max_pool2d", lambda t: F.adaptive_max_pool2d(t, 3), images)

    # activations and embeddings
    for name, fn in (("gelu", F.gelu), ("silu", F.silu), ("relu", F.relu), ("tanh", torch.tanh),
                     ("sigmoid", torch.sigmoid), ("softplus", F.softplus), ("leaky_relu", F.leaky_relu)):
        check_half(name, fn, x)
    table = torch.randn(11, 4)
    index = torch.tensor([[1, 3, 10], [0, 3, 3]])
    got = F.embedding(index.cuda(), table.cuda().half().requires_grad_())
    assert_close(got, F.embedding(index, table.half().float()), FP16_TOL, "embedding")

    # losses
    logits, labels = torch.randn(6, 5), torch.tensor([0, 4, 2, 2, 1, 3])
    target = torch.randn(6, 5)
    check_half("cross_entropy", lambda t: F.cross_entropy(t, labels.to(t.device)), logits)
    check_half("nll_loss", lambda t: F.nll_loss(F.log_softmax(t, 1), labels.to(t.device)), logits)
    check_half("mse_loss", F.mse_loss, logits, target)
    check_half("l1_loss", F.l1_loss, logits, target)
    check_half("smooth_l1_loss", F.smooth_l1_loss, logits, target)
    check_half("binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits, logits, torch.rand(6, 5))
    check_half("kl_div", lambda t, u: F.kl_div(F.log_softmax(t, 1), u, reduction="batchmean"), logits,
               torch.softmax(target, 1))
    # a dtype mix a GPU rejects stays rejected, in its words (1.13: CUDA's
    # addmm; 2.x: mm's Meta function, on a GPU as on the CPU)
    half, single = torch.ones(2, 2).half(), torch.ones(2, 2)
    message = error_of(lambda: torch.mm(half.cuda(), single.cuda()))
    if TORCH2:
        assert message == error_of(lambda: torch.mm(half, single)), message
    else:
        assert message == "expected mat1 and mat2 to have the same dtype, but got: c10::Half != float", message
    assert error_of(lambda: F.linear(single.cuda(), half.cuda())) == (
        error_of(lambda: F.linear(single, half)) if TORCH2 else
        "expected mat1 and mat2 to have the same dtype, but got: float != c10::Half")
    print("half paths ok")


class Attention(torch.nn.Module):
    def __init__(self, width, heads, length, sdpa):
        super().__init__()
        self.heads, self.sdpa = heads, sdpa
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.register_buffer("mask", torch.tril(torch.ones(length, length)).view(1, 1, length, length))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, 2)
        q, k, v = (u.view(b, t, self.heads, c // self.heads).transpose(1, 2) for u in (q, k, v))
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
            y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Block(torch.nn.Module):
    def __init__(self, width, heads, length, sdpa):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.attn = Attention(width, heads, length, sdpa)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(torch.nn.Module):
    """A small GPT: token and position embeddings, pre-norm blocks with causal
    self-attention, a head tied to the token embedding."""

    def __init__(self, vocab=32, width=32, heads=4, length=16, layers=2, sdpa=False):
        super().__init__()
        self.tok, self.pos = torch.nn.Embedding(vocab, width), torch.nn.Embedding(length, width)
        self.blocks = torch.nn.Sequential(*[Block(width, heads, length, sdpa) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tok.weight
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                torch.nn.init.normal_(p, std=0.02)

    def forward(self, idx, targets):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1), device=idx.device))
        logits = self.head(self.ln(self.blocks(x)))
        return F.cross_entropy(logits.view(-1, logits.size(-1)).float(), targets.reshape(-1))


def gpt_fp16():
    """A GPT trained in float16 (autocast + GradScaler) against float32 on the CPU."""
    for sdpa in (False, True) if hasattr(F, "scaled_dot_product_attention") else (False,):
        torch.manual_seed(0)
        reference = GPT(sdpa=sdpa)
        model = copy.deepcopy(reference).cuda()
        ref_opt = torch.optim.AdamW(reference.parameters(), lr=3e-3)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        # a scale float16 gradients overflow at first: the first steps are
        # skipped and the scale backs off, then steps are taken
        scaler = (torch.amp.GradScaler("cuda", init_scale=2.0 ** 24) if hasattr(torch.amp, "GradScaler")
                  else torch.cuda.amp.GradScaler(init_scale=2.0 ** 24))  # torch.amp's from 2.3 on
        data = torch.randint(0, 32, (8, 17), generator=torch.Generator().manual_seed(1))
        x, y = data[:, :-1], data[:, 1:]
        xc, yc = x.cuda(), y.cuda()
        steps, taken, losses = 30, 0, []
        for step in range(steps):
            opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(xc, yc)
            assert loss.dtype == torch.float32 and torch.isfinite(loss), (step, loss)
            scale = scaler.get_scale()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            stepped = scaler.get_scale() >= scale  # a skipped step backs the scale off
            taken += stepped
            ref_opt.zero_grad()
            ref_loss = reference(x, y)
            ref_loss.backward()
            if stepped:  # the reference takes the steps the scaler took
                ref_opt.step()
            losses.append(loss.item())
            assert abs(loss.item() - ref_loss.item()) <= 2e-2 * ref_loss.item(), (step, loss.item(), ref_loss.item())
        state_steps = opt.state[model.tok.weight]["step"]
        assert int(state_steps) == taken, (int(state_steps), taken)
        assert 0 < steps - taken <= 10, taken
        assert losses[-1] < 0.75 * losses[0], losses
        for p, q in zip(model.parameters(), reference.parameters()):
            assert_close(p, q, 5e-2, "trained parameter")
        # the same model in float16 throughout (model.half())
        half = copy.deepcopy(reference).cuda().half()
        loss = half(xc, yc)
        loss.backward()
        assert torch.isfinite(loss) and all(torch.isfinite(p.grad).all() for p in half.parameters())
        ref = copy.deepcopy(reference).half().float()
        ref_loss = ref(x, y)
        ref_loss.backward()
        assert abs(loss.item() - ref_loss.item()) <= 2e-2 * ref_loss.item(), (loss.item(), ref_loss.item())
        for p, q in zip(half.parameters(), ref.parameters()):
            assert p.grad.dtype == torch.float16
            assert_close(p.grad, q.grad, 5e-2, "float16 gradient")
        print("gpt%s: %d of %d steps taken, loss %.4f -> %.4f, scale %g" % (
            " (scaled_dot_product_attention)" if sdpa else "", taken, steps, losses[0], losses[-1],
            scaler.get_scale()))
    print("gpt fp16 ok")


SCENARIOS = {f.__name__: f for f in (autocast_lists, half_paths, gpt_fp16)}


def main(argv):
    name = argv[1]
    via = argv[argv.index("--via") + 1] if "--via" in argv else "env"
    lib = argv[argv.index("--lib") + 1] if "--lib" in argv else None
    turn_on(via, lib, 2)
    SCENARIOS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
