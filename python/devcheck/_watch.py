"""devcheck.watch(): the runtime device sanitizer around a block of Python."""

from . import _devcheck as _C

_MODES = ("report", "warn", "fail")


class Report:
    """What the sanitizer saw (devcheck::SanitizerReport).

    findings: each with kind ("device_mismatch", "small_copies"), op, site
    (the user's "file.py:LINE" that ran the op), arguments (name, device,
    dtype, shape, stray, origin_op, origin: where the tensor was made,
    derived_from_op, derived_from: for a tensor computed from one of known
    origin, the factory or transfer that computation started at),
    message and fix. transfers and syncs: the ledger of host<->device copies
    and of ops that made the host wait, by site."""

    def __init__(self, report):
        self._r = report
        self.findings = list(report.findings)
        self.transfers = list(report.transfers)
        self.syncs = list(report.syncs)
        self.ops_checked = report.ops_checked

    @property
    def ok(self):
        return self._r.ok()

    @property
    def mismatches(self):
        return [f for f in self.findings if f.kind == "device_mismatch"]

    def to_text(self):
        return self._r.to_text()

    def to_json(self):
        return self._r.to_json()

    def write_trace(self, path):
        """Writes the Chrome Trace Event file of copies and syncs (watch(trace=True))."""
        import os

        self._r.write_trace(os.fspath(path))

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return f"<devcheck.Report findings={len(self.findings)} mismatches={len(self.mismatches)} ops_checked={self.ops_checked}>"


class watch:
    """`with devcheck.watch(mode="warn") as w:` watches every ATen op the block
    runs, on every thread, and records tensors on the wrong device (with the
    line that made each), host<->device copies and synchronizing ops.
    w.report() is what it saw so far, or at the end once the block is left.

    mode: "report" (record only), "warn" (also print each finding to stderr the
    first time its site hits), "fail" (as warn, and leaving the block raises
    DeviceMismatchError with the report when a mismatch was found and the block
    raised nothing itself). provenance: remember where tensors were made
    (default True; False is cheaper). trace: record the Chrome trace for
    Report.write_trace(). One watch at a time per process; a second raises
    InvalidArgumentError."""

    def __init__(self, mode="report", provenance=True, trace=False):
        if mode not in _MODES:
            _C.Sanitizer(mode, provenance, trace, False)  # raises the C++ library's message
        self.mode = mode
        # The C++ fail mode sets the process exit status; here the block raises instead.
        self._s = _C.Sanitizer("warn" if mode == "fail" else mode, provenance, trace, mode != "report")
        self._last = None
        self.running = False
        self._resume = None

    def __enter__(self):
        # The notebook's background watch (`%load_ext devcheck`) steps aside
        # while this one runs, and starts again after it.
        background = _background
        if background is not None and background is not self and background.running:
            background._s.stop()
            background.running = False
            self._resume = background
        try:
            self._s.start()
        except BaseException:
            self._restart_background()
            raise
        self._last = None
        self.running = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self._last = Report(self._s.stop())
        self.running = False
        self._restart_background()
        if self.mode == "fail" and exc_type is None and self._last.mismatches:
            raise _C.DeviceMismatchError(self._last.to_text())
        return False

    def _restart_background(self):
        background, self._resume = self._resume, None
        if background is not None:
            background._s.start()
            background.running = True

    def report(self):
        return self._last if self._last is not None else Report(self._s.report())

    def clear_findings(self):
        """What report() holds starts here: the findings, copies and syncs so far
        are forgotten, but where tensors were made is kept, so a later finding
        still names the line that made an older tensor. For a watch reported in
        parts (each %%devcheck cell of a notebook)."""
        self._s.clear_findings()


# The watch that `%load_ext devcheck` keeps running for the whole notebook
# (magics.py), so %%devcheck knows where tensors of earlier cells were made.
# A watch the program starts itself pauses it while it runs.
_background = None
