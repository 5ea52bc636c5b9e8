"""python-lsp-server plugin: devcheck lint's diagnostics and fixes in pylsp.

Registered by the devcheck package's entry point (group "pylsp"), so pylsp
finds it once the package is installed. The diagnostics come from the same
server editors start, `devcheck lsp`, run once per pylsp process: the text
of the buffer is sent to it and its diagnostics and code actions are handed
to pylsp as they are.

Settings (pylsp's configuration, `pylsp.plugins.devcheck`): enabled
(default True), executable (default: `devcheck` on PATH), select and ignore
(rule ids or prefixes; pyproject.toml's [tool.devcheck.lint] applies too).
"""

import json
import os
import shutil
import subprocess
import threading

from pylsp import hookimpl

_TIMEOUT_S = 30.0


class DevcheckServer:
    """One `devcheck lsp` process, spoken to synchronously. Thread-safe."""

    def __init__(self, executable):
        self.executable = executable
        self._proc = subprocess.Popen(
            [executable, "lsp", "--debounce-ms", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._lock = threading.Lock()
        self._next_id = 0
        self._versions = {}
        self._settings = None
        self._request("initialize", {"processId": os.getpid(), "capabilities": {}})
        self._notify("initialized", {})

    def alive(self):
        return self._proc.poll() is None

    def _write(self, message):
        body = json.dumps(message).encode("utf-8")
        self._proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self._proc.stdin.flush()

    def _read(self):
        length = None
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise RuntimeError(f"[devcheck] {self.executable} lsp ended")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        return json.loads(self._proc.stdout.read(length))

    def _notify(self, method, params):
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def _request(self, method, params):
        self._next_id += 1
        self._write({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(message["error"]["message"])
                return message.get("result")

    def _configure(self, select, ignore):
        settings = {"devcheck": {"select": list(select or []), "ignore": list(ignore or [])}}
        if settings != self._settings:
            self._settings = settings
            self._notify("workspace/didChangeConfiguration", {"settings": settings})

    def _open(self, uri, text):
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        self._notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )
        return version

    def diagnostics(self, uri, text, select=(), ignore=()):
        """The diagnostics of `text` (the buffer named by `uri`)."""
        with self._lock:
            self._configure(select, ignore)
            version = self._open(uri, text)
            while True:
                message = self._read()
                params = message.get("params") or {}
                if (
                    message.get("method") == "textDocument/publishDiagnostics"
                    and params.get("uri") == uri
                    and params.get("version") == version
                ):
                    return params["diagnostics"]

    def code_actions(self, uri, text, range_, select=(), ignore=()):
        """The code actions the server offers for `range_` of `text`."""
        with self._lock:
            self._configure(select, ignore)
            self._open(uri, text)
            return self._request(
                "textDocument/codeAction",
                {"textDocument": {"uri": uri}, "range": range_, "context": {"diagnostics": []}},
            )

    def close(self):
        with self._lock:
            try:
                self._request("shutdown", None)
                self._notify("exit", None)
                self._proc.wait(timeout=_TIMEOUT_S)
            except (OSError, RuntimeError, subprocess.TimeoutExpired):
                self._proc.kill()


_servers = {}
_servers_lock = threading.Lock()


def _executable(settings):
    exe = settings.get("executable") or os.environ.get("DEVCHECK_CLI") or shutil.which("devcheck")
    if not exe:
        raise RuntimeError(
            "[devcheck] pylsp_devcheck: no `devcheck` on PATH; fix: install devcheck or set "
            "pylsp.plugins.devcheck.executable to the devcheck program"
        )
    return exe


def server(settings):
    exe = _executable(settings)
    with _servers_lock:
        s = _servers.get(exe)
        if s is None or not s.alive():
            s = _servers[exe] = DevcheckServer(exe)
        return s


def _settings(config, document):
    return config.plugin_settings("devcheck", document_path=document.path)


@hookimpl
def pylsp_settings():
    return {"plugins": {"devcheck": {"enabled": True, "executable": None, "select": [], "ignore": []}}}


@hookimpl
def pylsp_lint(config, workspace, document, is_saved):
    settings = _settings(config, document)
    return server(settings).diagnostics(
        document.uri, document.source, settings.get("select"), settings.get("ignore")
    )


@hookimpl
def pylsp_code_actions(config, workspace, document, range, context):
    settings = _settings(config, document)
    return server(settings).code_actions(
        document.uri, document.source, range, settings.get("select"), settings.get("ignore")
    )
