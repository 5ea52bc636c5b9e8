#!/usr/bin/env python3
"""`devcheck lsp`'s latency from didChange to publishDiagnostics, against
`devcheck lint FILE` run as a process on the same file, in one run.

    python3 bench/lsp_latency.py BUILD_DIR [--rounds N] [FILE...]

Files: a generated 2,000-line training module (target: <= 50 ms with the
default debounce) and torch's largest Python file (from the installed torch
tree), unless FILEs are given. Each round edits one line (an incremental
didChange that inserts, then removes, a space) and waits for the
publishDiagnostics of that version; the median and the 90th percentile are
reported, with the server's default debounce (25 ms) and with --debounce-ms 0
(the lint alone). The anchor is `devcheck lint FILE` as a process (start-up,
read, lint, print), median of the same number of runs; the ratio is
lsp / anchor. Conditions printed: cores, the load average before and after,
and that each lint runs on one thread.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BLOCK = '''
class Block{n}(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        h = torch.zeros(x.size(0), x.size(1))
        mask = torch.ones(x.size(1), device=x.device)
        return self.norm(self.fc(x) * mask) + h


def train_{n}(model, loader, device):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(loss.item())
    return model
'''


def generated(lines):
    text = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    n = 0
    while text.count("\n") < lines:
        text += BLOCK.format(n=n)
        n += 1
    return "\n".join(text.split("\n")[:lines]) + "\n"


def largest_torch_file():
    best = (0, None)
    for root, _, files in os.walk("/usr/lib/python3/dist-packages/torch"):
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(root, f)
                best = max(best, (os.path.getsize(p), p))
    return best[1]


class Lsp:
    def __init__(self, exe, debounce):
        argv = [exe, "lsp"] + ([] if debounce is None else ["--debounce-ms", str(debounce)])
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.id = 0
        self.request("initialize", {"capabilities": {}})

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line.strip():
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while self.read().get("id") != self.id:
            pass

    def wait_published(self, version):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version:
                return len(m["params"]["diagnostics"])

    def close(self):
        self.request("shutdown", None)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.wait()


def lsp_latency(exe, path, text, rounds, debounce):
    server = Lsp(exe, debounce)
    uri = "file://" + path
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
    found = server.wait_published(1)
    line = text.count("\n") // 2
    times = []
    for r in range(rounds):
        version = r + 2
        insert = r % 2 == 0
        change = {"range": {"start": {"line": line, "character": 0},
                            "end": {"line": line, "character": 0 if insert else 1}},
                  "text": " " if insert else ""}
        if not insert:
            change["range"]["end"]["character"] = 1
        start = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        server.wait_published(version)
        times.append((time.perf_counter() - start) * 1000)
    server.close()
    return times, found


def process_times(exe, path, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run([exe, "lint", "-j", "1", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return times


def p90(xs):
    return sorted(xs)[max(0, int(round(0.9 * len(xs))) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    exe = os.path.join(a.build, "devcheck")
    if not os.access(exe, os.X_OK):
        print(f"lsp_latency: no {exe}; build the devcheck_cli target first", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp()
    files = a.files
    if not files:
        gen = os.path.join(tmp, "train_2000.py")
        with open(gen, "w") as f:
            f.write(generated(2000))
        files = [gen, largest_torch_file()]
    load_before = open("/proc/loadavg").read().split()[:3]
    print(f"devcheck lsp latency (didChange -> publishDiagnostics), {a.rounds} rounds each; "
          f"{os.cpu_count()} cores, each lint on one thread; load average before: {' '.join(load_before)}")
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        anchor = process_times(exe, path, a.rounds)
        rows = []
        for debounce, label in ((None, "default debounce (25 ms)"), (0, "--debounce-ms 0")):
            times, found = lsp_latency(exe, os.path.abspath(path), text, a.rounds, debounce)
            rows.append((label, times, found))
        a_med = statistics.median(anchor)
        print(f"\n{path}: {text.count(chr(10))} lines, {len(text)} bytes")
        print(f"  anchor: devcheck lint -j 1 FILE as a process: median {a_med:.1f} ms, p90 {p90(anchor):.1f} ms")
        for label, times, found in rows:
            med = statistics.median(times)
            print(f"  lsp, {label}: median {med:.1f} ms, p90 {p90(times):.1f} ms "
                  f"({found} diagnostics; {med / a_med:.2f}x the process)")
    load_after = open("/proc/loadavg").read().split()[:3]
    print(f"\nload average after: {' '.join(load_after)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
