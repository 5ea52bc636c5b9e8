#!/usr/bin/env python3
"""Lints files nested or chained deeper than any stack, in the places the rules read.

    stress.py DEVCHECK

Eleven shapes of expression a hundred thousand deep or long (an `or` chain,
`not not ...`, parentheses, subscripts, attribute and call chains,
conditionals, a sum, nested lists, lambdas, unary minus; the `or` chain and
the sum are valid Python of any length) in eighteen places the flow or a rule
reads (an `if` test and its `else`, torch.load's path, a module's forward and
__init__, a device variable, a `with`, a loop's iterable, a DataLoader, a
DataParallel, an optimizer, a decorator, a base class, a default, a return,
`device=`, `.item()` in a training loop, an `isinstance` assert), and one
invalid tuple that tree-sitter's error recovery takes minutes over (the
parse gives up after its time limit: DC100). All are linted by one
`devcheck lint -j 2` (written to a temporary folder, about 200 files, 30 MB):
it must end with status 0 or 1, not a crash (a signal) or 2; on a failure each
file is linted alone to name the ones that fail. Before src/lint/stack.h a
third of them crashed with SIGSEGV.
"""
import os
import subprocess
import sys
import tempfile

N = 100000

EXPRESSIONS = {
    "or": " or ".join(["not args.cuda"] * N),
    "not": "not " * N + "x",
    "paren": "(" * N + "x" + ")" * N,
    "sub": "x" + "[0]" * N,
    "attr": "x" + ".a" * N,
    "call": "x" + "()" * N,
    "cond": " if c else ".join(["x"] * N),
    "plus": " + ".join(["x"] * N),
    "list": "[" * N + "]" * N,
    "lambda": "lambda: " * N + "x",
    "neg": "-" * N + "x",
}

PLACES = {
    "if": "import torch\nif {e}:\n    d = torch.zeros(1).cuda()\nelse:\n"
          "    d = torch.device('cuda')\n",
    "load": "import torch\nm = torch.load({e})\n",
    "forward": "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
               "        super().__init__()\n        self.t = torch.zeros(1)\n"
               "    def forward(self, x):\n        return x + self.t + ({e})\n",
    "init": "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.t = {e}\n",
    "device": "import torch\ndevice = {e}\nx = torch.zeros(1).cuda()\n",
    "with": "import torch\nwith {e} as f:\n    torch.save(m.state_dict(), f)\n",
    "for": "import torch\nmodel = Net().cuda()\nfor b in {e}:\n    print(model(b).item())\n",
    "loader": "from torch.utils.data import DataLoader\ndl = DataLoader({e}, num_workers=2)\n",
    "dp": "import torch\nnet = torch.nn.DataParallel({e})\nnet.cuda()\n",
    "opt": "import torch\nopt = torch.optim.Adam({e})\nmodel.cuda()\nopt.load_state_dict(s)\n",
    "deco": "import torch\n@decorate({e})\ndef f(x):\n    return x.cuda()\n",
    "base": "import torch\nclass M({e}):\n    def forward(self, x):\n        return x + torch.zeros(1)\n",
    "default": "import torch\ndef f(x, d={e}):\n    return x.to(d) + torch.zeros(1)\n",
    "return": "import torch\ndef g(x):\n    return {e}\ndef h(x):\n    x = x.cuda()\n"
              "    return g(x) + torch.zeros(1)\n",
    "kw": "import torch\ny = torch.zeros(1, device={e})\nz = y + torch.ones(1).cuda()\n",
    "item": "import torch\nfor b in loader:\n    loss = model(b.cuda())\n"
            "    total += ({e}).item()\n    loss.backward()\n",
    "assert": "import torch\nassert isinstance({e}, torch.Tensor)\n",
    "aug": "import torch\nx = torch.zeros(1).cuda()\nx += {e}\n",
}


def lint(devcheck, path):
    return subprocess.run([devcheck, "lint", "-j", "2", path], capture_output=True, text=True,
                          check=False)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    devcheck = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        for e_name, expression in EXPRESSIONS.items():
            for p_name, place in PLACES.items():
                with open(os.path.join(folder, f"{e_name}_{p_name}.py"), "w",
                          encoding="utf-8") as f:
                    f.write(place.replace("{e}", expression))
        with open(os.path.join(folder, "slow_tuple.py"), "w", encoding="utf-8") as f:
            f.write("if " + ", ".join(["x"] * N) + ":\n    d = 1\n")
        out = lint(devcheck, folder)
        count = len(EXPRESSIONS) * len(PLACES) + 1
        print(f"stress: {count} files, exit {out.returncode}")
        given_up = [line for line in out.stdout.splitlines() if "parser gave up" in line]
        if out.returncode in (0, 1) and len(given_up) == 1 and "slow_tuple.py" in given_up[0]:
            return 0
        print(out.stdout[-2000:], out.stderr[-2000:])
        for name in sorted(os.listdir(folder)):
            one = lint(devcheck, os.path.join(folder, name))
            if one.returncode not in (0, 1):
                print(f"stress: {name}: exit {one.returncode}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
