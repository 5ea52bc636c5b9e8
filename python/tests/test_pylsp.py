"""pylsp_devcheck: python-lsp-server (Debian's python3-pylsp) as a real client,
finding the plugin through the package's entry point and publishing devcheck's
diagnostics, the same as `devcheck lsp` gives an editor."""

import json
import os
import subprocess
import sys

import pytest

# The editor and notebook clients are torch-independent: tested once, in the
# default lane (scripts/install-deps.sh installs them).
pytest.importorskip("pylsp", reason="python3-pylsp: installed by scripts/install-deps.sh in the default lane; the torch lanes' roots have no Jupyter or pylsp")

SOURCE = (
    "import torch\n"
    "x = torch.randn(4, device='cuda')\n"
    "h = torch.zeros(4)\n"
    "y = x + h\n"
    "scaler = torch.cuda.amp.GradScaler()\n"
)


class Client:
    """A Language Server Protocol client on a server's stdin and stdout."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server ended"
            if not line.strip():
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == self.next_id and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def open(self, uri, text):
        self.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})
        self.notify("textDocument/didOpen",
                    {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})

    def diagnostics(self, uri, source=None, timeout_s=60):
        """The first publishDiagnostics for `uri` that has `source`'s diagnostics."""
        while True:
            m = self.read()
            if m.get("method") != "textDocument/publishDiagnostics" or m["params"]["uri"] != uri:
                continue
            found = [d for d in m["params"]["diagnostics"] if source is None or d.get("source") == source]
            if found:
                return found

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=30)


@pytest.fixture
def cli():
    exe = os.environ.get("DEVCHECK_CLI")
    if not exe:
        pytest.fail("DEVCHECK_CLI is not set: run_suite.sh sets it to the build's devcheck")
    return exe


def key(d):
    return (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"], d["message"])


def test_pylsp_publishes_devcheck_diagnostics_like_devcheck_lsp(tmp_path, cli):
    path = tmp_path / "train.py"
    path.write_text(SOURCE)
    uri = path.as_uri()
    env = dict(os.environ, DEVCHECK_CLI=cli)
    pylsp = Client([sys.executable, "-m", "pylsp"], env=env)
    pylsp.open(uri, SOURCE)
    got = pylsp.diagnostics(uri, source="devcheck")
    # The transcript the closing note shows (pytest -s prints it).
    print(f"pylsp published {len(got)} devcheck diagnostics for train.py:")
    for d in sorted(got, key=key):
        print(f"  {d['code']} line {d['range']['start']['line'] + 1} col {d['range']['start']['character'] + 1}"
              f" severity {d['severity']}: {d['message']}")
    lines = sorted((d["code"], d["range"]["start"]["line"] + 1) for d in got)
    assert lines == [("DC101", 3), ("DC109", 5)], got
    dc101 = next(d for d in got if d["code"] == "DC101")
    assert dc101["message"].startswith("torch.zeros(...) without device= makes a tensor on the CPU, and line 4")
    assert dc101["codeDescription"]["href"].endswith("docs/lint.md#dc101")
    actions = pylsp.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
        "context": {"diagnostics": []},
    })["result"]
    titles = [a["title"] for a in actions]
    assert "Disable DC109 for this line" in titles, titles
    fix = next(a for a in actions if a.get("isPreferred"))
    print("code actions on line 5: " + "; ".join(titles))
    assert [e["newText"] for e in fix["edit"]["changes"][uri]] == ["torch.amp.GradScaler", '"cuda"']
    pylsp.close()

    direct = Client([cli, "lsp"])
    direct.open(uri, SOURCE)
    expected = direct.diagnostics(uri)
    direct.close()
    assert sorted(map(key, got)) == sorted(map(key, expected))


def test_plugin_is_registered_by_entry_point():
    from importlib.metadata import entry_points

    eps = entry_points()
    group = eps.select(group="pylsp") if hasattr(eps, "select") else eps.get("pylsp", [])
    assert any(ep.value == "pylsp_devcheck" for ep in group), list(group)
