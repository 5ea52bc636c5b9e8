"""Fake CUDA computes a double backward's numbers bitwise as the CPU does
whenever the autograd engine adds the gradients in the same order.

A node of the backward graph that receives three or more gradients adds them
in the order their producers ran ((a + b) + c is not (a + c) + b in float32).
The engine runs ready nodes highest sequence number first, and a node's
sequence number comes from a per-thread counter (at::sequence_number,
thread_local). A backward of CUDA tensors runs on the engine's device thread,
on a GPU as under fake CUDA, so the nodes a double backward creates
(`create_graph`, functorch's `grad`) are numbered from that thread's counter,
while on the CPU they continue the main thread's: the order, and the last
bits, can differ from a CPU run's. That is the engine, not a kernel: this test
holds fake CUDA to the CPU's numbers wherever the order is the CPU's.

The program (issue 40's reduction of functorch's maml-omniglot-transforms.py:
a vmap over two tasks of two inner `grad` steps through a BatchNorm, then the
meta-gradient) runs on the CPU and under `devcheck run --fake-cuda` in
configurations that change the order and nothing computed:

    plain     as written;
    counter   ten autograd nodes made first on the main thread (advances its
              counter only: no random draw, no tensor the program uses);
    calling   torch.autograd.set_multithreading_enabled(False) (torch >= 2.0):
              the engine runs a CUDA backward on the calling thread, as a CPU one.

Each run records the graph (every node's type and edges) and the order in
which each node with three or more inputs received them. Asserted:
  - the graph is the same on both devices in every configuration;
  - where every such order is the CPU's, the meta-gradients are bitwise the
    CPU's; where one differs, they agree to 1e-3 of each parameter's largest
    gradient (the reordered nodes are then named);
  - `calling` gives the CPU's order (torch >= 2.0), and at least one
    configuration does on every torch, so the bitwise check always runs.

    /usr/bin/python3 autograd_order.py --devcheck build/devcheck
"""

import argparse
import json
import os
import subprocess
import sys

CONFIGS = ("plain", "counter", "calling")


def child(config):
    """One run on sys.argv's device: prints one JSON line."""
    import torch
    import torch.nn.functional as F
    from functorch import grad, make_functional_with_buffers, vmap

    device = os.environ["AUTOGRAD_ORDER_DEVICE"]
    if config == "counter":
        w = torch.ones(2, requires_grad=True)
        for _ in range(10):
            w = w * 1.0
    elif config == "calling":
        torch.autograd.set_multithreading_enabled(False)
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(784, 8), torch.nn.Unflatten(1, (8, 1, 1)),
                              torch.nn.BatchNorm2d(8, track_running_stats=False), torch.nn.Flatten(),
                              torch.nn.Linear(8, 3)).to(device)
    fnet, params, buffers = make_functional_with_buffers(net)
    x = torch.rand(2, 3, 784).to(device)
    y = torch.arange(3).repeat(2, 1).to(device)

    def task(x, y):
        p = params
        for _ in range(2):
            g = grad(lambda p: F.cross_entropy(fnet(p, buffers, x), y))(p)
            p = [a - 0.1 * d for a, d in zip(p, g)]
        return F.cross_entropy(fnet(p, buffers, x), y)

    loss = vmap(task)(x, y).sum()
    ids, names, edges, ran = {}, [], [], []
    stack = [loss.grad_fn]
    while stack:  # number the nodes in a walk that depends on the graph only
        node = stack.pop()
        if node is None or node in ids:
            continue
        ids[node] = len(ids)
        names.append(type(node).__name__)
        node.register_hook(lambda grad_in, grad_out, i=ids[node]: ran.append(i))
        stack.extend(f for f, _ in node.next_functions)
    for node, i in ids.items():
        edges.extend([i, ids[f]] for f, _ in node.next_functions if f is not None)
    loss.backward()
    position = {n: k for k, n in enumerate(ran)}
    inputs = {}
    for a, b in edges:
        inputs.setdefault(b, []).append(a)
    arrivals = {str(b): sorted(fs, key=position.__getitem__) for b, fs in inputs.items() if len(fs) >= 3}
    grads = [q.grad.detach().cpu().double().flatten().tolist() for q in params]
    print("RESULT " + json.dumps(dict(names=names, edges=edges, arrivals=arrivals, grads=grads)))


def run(options, config, device):
    env = dict(os.environ, AUTOGRAD_ORDER_DEVICE=device)
    argv = [sys.executable, os.path.abspath(__file__), "--config", config]
    if device == "cuda":
        argv = [options.devcheck, "run", "--fake-cuda", "--"] + argv
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or len(lines) != 1:
        raise AssertionError("%s on %s: exit %d\n%s\n%s"
                             % (config, device, done.returncode, done.stdout[-2000:], done.stderr[-2000:]))
    return json.loads(lines[0][len("RESULT "):])


def compare(config, cpu, fake):
    """One configuration: returns (order is the CPU's, the line to print); raises where the claim fails."""
    if cpu["names"] != fake["names"] or cpu["edges"] != fake["edges"]:
        raise AssertionError("%s: the backward graph differs between the CPU (%d nodes) and fake CUDA (%d nodes)"
                             % (config, len(cpu["names"]), len(fake["names"])))
    reordered = ["%s(%s): cpu %s, cuda %s" % (cpu["names"][int(n)], n, cpu["arrivals"][n], fake["arrivals"][n])
                 for n in sorted(cpu["arrivals"], key=int) if cpu["arrivals"][n] != fake["arrivals"][n]]
    # per parameter, the largest difference against the parameter's largest gradient
    largest = max(max(abs(a - b) for a, b in zip(ga, gb)) / max(max(map(abs, ga)), 1e-30)
                  for ga, gb in zip(cpu["grads"], fake["grads"]))
    if not reordered:
        if largest != 0:
            raise AssertionError("%s: the engine added every gradient in the CPU's order, yet the meta-gradients "
                                 "differ (largest relative difference %.3g): fake CUDA computed something else"
                                 % (config, largest))
        return True, "%-8s order the CPU's at all %d nodes of 3+ inputs: meta-gradients bitwise the CPU's" % (
            config, len(cpu["arrivals"]))
    if largest > 1e-3:
        raise AssertionError("%s: meta-gradients differ by %.3g relative, more than a reordered float32 sum "
                             "(reordered: %s)" % (config, largest, "; ".join(reordered)))
    return False, "%-8s order differs at %d of %d nodes of 3+ inputs (%s): meta-gradients within %.2g relative" % (
        config, len(reordered), len(cpu["arrivals"]), "; ".join(reordered), largest)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devcheck", help="the devcheck CLI")
    parser.add_argument("--config", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.config:
        child(options.config)
        return 0
    if not options.devcheck:
        parser.error("give --devcheck")
    import torch

    has_switch = hasattr(torch.autograd, "set_multithreading_enabled")
    same_order = []
    for config in CONFIGS:
        if config == "calling" and not has_switch:
            print("%-8s not run: torch %s has no torch.autograd.set_multithreading_enabled"
                  % (config, torch.__version__))
            continue
        equal, line = compare(config, run(options, config, "cpu"), run(options, config, "cuda"))
        print(line, flush=True)
        if equal:
            same_order.append(config)
        elif config == "calling":
            raise AssertionError("calling: with autograd's device threads off the order must be the CPU's")
    if not same_order:
        raise AssertionError("no configuration gave the CPU's order: the bitwise check did not run")
    print("autograd_order: bitwise the CPU's in %s" % ", ".join(same_order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
