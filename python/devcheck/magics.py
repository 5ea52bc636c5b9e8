"""devcheck in Jupyter and IPython: `%load_ext devcheck`, then

    %%devcheck                 run the cell under the sanitizer (devcheck.watch()):
                               device mismatches with the cell's line and the line
                               (in this cell or an earlier one) where the stray
                               tensor was made; the copy ledger and the syncs. An
                               HTML table in a notebook, text in a console.
    %devcheck_fake_cuda [N]    fake CUDA for the kernel (devcheck.fake_cuda(N), default 2)
    %devcheck_lint             `devcheck lint` on the notebook's cells so far
    %devcheck_origins [on|off] whether every cell is watched for where tensors are
                               made (default on from %load_ext; off: cells outside
                               %%devcheck run unwatched, and a tensor made in one
                               has an unknown origin)

Where a tensor of an earlier cell was made is known because `%load_ext
devcheck` starts one watch (report mode, provenance on) that runs under every
cell; %%devcheck reports only what its own cell did (Sanitizer::clear_findings
at its start). That watch costs what the sanitizer costs (docs/sanitizer.md:
a few percent on a training step, more on tiny ops); `%devcheck_origins off`
stops it. A `devcheck.watch()` the notebook starts itself pauses it.

A site the sanitizer reports as "/tmp/ipykernel_1/123.py:4" is shown as
IPython shows it in tracebacks: "In [7], line 4".
"""

import atexit
import html
import json
import re
import os
import shutil
import subprocess
import tempfile

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

from . import _watch
from ._watch import watch


_SITE = re.compile(r"^(.*?):(\d+)(.*)$", re.S)


def _split_site(site):
    """ "FILE:LINE (function)" -> (FILE, LINE, " (function)"); (site, None, "") otherwise."""
    m = _SITE.match(site or "")
    if not m:
        return site or "", None, ""
    return m.group(1), int(m.group(2)), m.group(3)


class CellReport:
    """What %%devcheck saw in one cell: `_repr_html_` for a notebook, `__repr__` (text) for a console."""

    def __init__(self, report, site_name, error=None):
        self.report = report
        self._site = site_name
        self.error = error

    def _rows(self):
        mismatches = []
        for f in self.report.mismatches:
            stray = [a for a in f.arguments if a.stray] or list(f.arguments)
            made = "; ".join(
                f"{a.name or 'argument'} ({a.device}) made by {a.origin_op or '?'} at {self._site(a.origin) if a.origin else 'unknown'}"
                for a in stray
            )
            mismatches.append((f.op, self._site(f.site), made, f.message, f.fix))
        copies = [(t.op, t.direction, self._site(t.site), t.count, t.bytes, "yes" if t.synchronizing else "no")
                  for t in self.report.transfers]
        syncs = [(s.op, self._site(s.site), s.device, s.count) for s in self.report.syncs]
        return mismatches, copies, syncs

    def summary(self):
        r = self.report
        return (f"devcheck: {len(r.mismatches)} device mismatch{'es' if len(r.mismatches) != 1 else ''}, "
                f"{sum(t.count for t in r.transfers)} host<->device copies, "
                f"{sum(s.count for s in r.syncs)} syncs ({r.ops_checked} ops checked)")

    def __repr__(self):
        mismatches, copies, syncs = self._rows()
        lines = [self.summary()]
        for op, site, made, message, _fix in mismatches:
            lines.append(f"mismatch: {op} at {site}: stray tensor {made}")
            lines.append(f"  {message}")  # the sanitizer's message ends with its fix
        if copies:
            lines.append("copies (op, direction, site, count, bytes, synchronizing):")
            lines += [f"  {op}  {d}  {site}  {n}  {b}  {s}" for op, d, site, n, b, s in copies]
        if syncs:
            lines.append("syncs (op, site, device, count):")
            lines += [f"  {op}  {site}  {dev}  {n}" for op, site, dev, n in syncs]
        if self.error is not None:
            lines.append(f"the cell raised {type(self.error).__name__}: {self.error}")
        return "\n".join(lines)

    def _repr_html_(self):
        mismatches, copies, syncs = self._rows()
        e = html.escape

        def table(caption, head, rows):
            if not rows:
                return ""
            out = [f"<table><caption>{e(caption)}</caption><tr>"]
            out += [f"<th>{e(h)}</th>" for h in head]
            out.append("</tr>")
            for row in rows:
                out.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>")
            out.append("</table>")
            return "".join(out)

        parts = [f"<p><b>{e(self.summary())}</b></p>"]
        parts.append(table("device mismatches", ["op", "where", "stray tensor made", "message", "fix"], mismatches))
        parts.append(table("copy ledger", ["op", "direction", "where", "count", "bytes", "synchronizing"], copies))
        parts.append(table("syncs", ["op", "where", "device", "count"], syncs))
        if self.error is not None:
            parts.append(f"<p>the cell raised {e(type(self.error).__name__)}: {e(str(self.error))}</p>")
        return "".join(parts)


@magics_class
class DevcheckMagics(Magics):
    def _cell_name(self, file):
        numbers = getattr(self.shell.compile, "_filename_map", {})
        return numbers.get(file)

    def site_name(self, site):
        """A sanitizer site ("FILE:LINE") as IPython names cells: "In [N], line L"."""
        file, line, rest = _split_site(site)
        number = self._cell_name(file)
        if number is None or line is None:
            return site
        return f"In [{number}], line {line}{rest}"

    @cell_magic
    def devcheck(self, line, cell):
        """Runs the cell under devcheck's sanitizer and shows what it saw."""
        shell = self.shell
        number = shell.execution_count
        # Line 1 of the cell is the %%devcheck line: keep the cell's numbering.
        source = "\n" + shell.transform_cell(cell)
        name = shell.compile.cache(source, number, raw_code="%%devcheck\n" + cell)
        code = compile(source, name, "exec")
        error = None
        background = _watch._background
        if background is not None and background.running:
            # The notebook's watch: it knows where earlier cells made their tensors.
            background.clear_findings()
            try:
                exec(code, shell.user_global_ns, shell.user_ns)  # noqa: S102 (the user's own cell)
            except Exception as e:  # shown with the report, then raised again
                error = e
            report = background.report()
        else:
            with watch(mode="report") as w:
                try:
                    exec(code, shell.user_global_ns, shell.user_ns)  # noqa: S102
                except Exception as e:
                    error = e
            report = w.report()
        result = CellReport(report, self.site_name, error)
        from IPython.display import display

        display(result)
        if error is not None:
            raise error

    @line_magic
    def devcheck_fake_cuda(self, line):
        """%devcheck_fake_cuda [N]: fake CUDA with N devices (default 2) for this kernel."""
        from ._api import fake_cuda

        arg = line.strip()
        devices = fake_cuda(int(arg) if arg else 2)
        print(f"devcheck: fake CUDA on, {len(devices)} device{'s' if len(devices) != 1 else ''}: "
              + ", ".join(str(d) for d in devices))

    @line_magic
    def devcheck_origins(self, line):
        """%devcheck_origins [on|off]: watch every cell for where tensors are made (on), or only %%devcheck cells."""
        arg = line.strip().lower()
        if arg not in ("", "on", "off"):
            print(f"devcheck: %devcheck_origins takes on or off, not {line.strip()!r}")
            return
        if arg == "on":
            start_origins()
        elif arg == "off":
            stop_origins()
        if _watch._background is not None and _watch._background.running:
            print("devcheck: origins on: every cell is watched for where tensors are made")
        else:
            print("devcheck: origins off: only %%devcheck cells are watched")

    @line_magic
    def devcheck_lint(self, line):
        """%devcheck_lint: devcheck lint on the cells run so far (In [1] ... In [N])."""
        cli = os.environ.get("DEVCHECK_CLI") or shutil.which("devcheck")
        if not cli:
            print("devcheck: no `devcheck` program on PATH (set DEVCHECK_CLI to it)")
            return
        # The cells as typed (magics as magics: lint leaves them out).
        history = list(self.shell.history_manager.input_hist_raw)[1:]
        cells = [{"cell_type": "code", "execution_count": i + 1, "metadata": {}, "outputs": [],
                  "source": text} for i, text in enumerate(history)]
        notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "session.ipynb")
            with open(path, "w") as f:
                json.dump(notebook, f)
            r = subprocess.run([cli, "lint", "--format", "json", path], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print(f"devcheck lint failed (status {r.returncode}): {r.stderr.strip()}")
            return
        findings = json.loads(r.stdout)
        if not findings:
            print(f"devcheck lint: no findings in {len(history)} cells")
            return
        for f in findings:
            message = re.sub(r"\bcell (\d+), line", r"In [\1], line", f["message"])
            print(f"In [{f.get('cell', '?')}], line {f['line']}:{f['column']}: {f['rule']} {message}")
        print(f"devcheck lint: {len(findings)} finding{'s' if len(findings) != 1 else ''} "
              f"in {len(history)} cells")


def start_origins():
    """Starts the notebook's background watch (once)."""
    if _watch._background is None:
        _watch._background = watch(mode="report")
        atexit.register(stop_origins)
    if not _watch._background.running:
        _watch._background.__enter__()


def stop_origins():
    """Stops it; %%devcheck then watches its own cell only."""
    background = _watch._background
    if background is not None and background.running:
        background.__exit__(None, None, None)


def load_ipython_extension(ipython):
    ipython.register_magics(DevcheckMagics)
    start_origins()
