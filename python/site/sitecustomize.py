"""devcheck's sitecustomize for Python programs `devcheck run` starts through
its preload library (its folder is put first on PYTHONPATH).

Once the program has imported torch:
- makes os._exit() write the sanitizer's report first (it runs no atexit
  handler; multiprocessing's fork and forkserver children end by it);
- with fake CUDA asked for (devcheck run --fake-cuda, DEVCHECK_FAKE_CUDA=N):
  gives torch.cuda fake CUDA's devices (devcheck_fake_cuda.start; the
  preload library turned the C++ side on from the request when LibTorch
  loaded, and this asks the C++ side for it);
- otherwise: leaves a mark in devcheck run's report folder when the program
  asks torch.cuda whether CUDA is there, so devcheck run can say its CUDA
  paths did not run.

Nothing else happens here, and nothing at all when torch is never imported.
The sitecustomize that would have run without devcheck's (Debian's, a
virtualenv's) still runs, first.
"""

import importlib.abc
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _run_the_next_sitecustomize():
    others = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # as site.py treats a failing sitecustomize
        print("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s"
              % (type(e).__name__, e), file=sys.stderr)


def _note_cuda_asked():
    folder = os.environ.get("DEVCHECK_SANITIZE_REPORT_DIR")
    if not folder:
        return
    try:
        with open(os.path.join(folder, "cuda-asked-%d" % os.getpid()), "w"):
            pass
    except OSError:
        pass


def _watch_cuda_questions(torch):
    cuda = torch.cuda
    for name in ("is_available", "device_count"):
        asked = getattr(cuda, name)

        def answer(*args, _asked=asked, **kwargs):
            _note_cuda_asked()
            return _asked(*args, **kwargs)

        answer.__name__ = asked.__name__
        answer.__doc__ = asked.__doc__
        answer.__wrapped__ = asked
        setattr(cuda, name, answer)


def _fake_cuda_request(torch):
    """(count, force) of devcheck run's fake-CUDA request, as its C++ side read
    it (devcheck::fake_cuda_request_from_environment): the preload library
    loaded fake CUDA's library and turned it on from that request when
    LibTorch loaded. (0, False) when it was not asked for (the library is
    then not loaded)."""
    ops = torch.ops.devcheck
    if not hasattr(ops, "fake_cuda_request"):
        return 0, False
    count, force = ops.fake_cuda_request()
    return int(count), bool(force)


def _report_before_os_exit(torch):
    """os._exit() runs no atexit handler, so the sanitizer's exit hook never
    wrote the report of a process that ends by it: multiprocessing's fork and
    forkserver children do (a mismatch in a worker was lost). os._exit writes
    it first, at the process's real end (after multiprocessing's finalizers
    and the join of its threads). A fork child inherits the wrapper; a spawn
    child ends by sys.exit, through the exit hook."""
    ops = torch.ops.devcheck
    if getattr(os._exit, "_devcheck_report", False) or not hasattr(ops, "sanitizer_exit_report"):
        return
    real_exit = os._exit

    def _exit(status, _real=real_exit, _report=ops.sanitizer_exit_report):
        try:
            _report(int(status))
        except Exception:  # as an exit hook would: the process still ends
            pass
        _real(status)

    _exit._devcheck_report = True
    _exit.__doc__ = real_exit.__doc__
    os._exit = _exit


def _after_torch(torch):
    _report_before_os_exit(torch)
    count, force = _fake_cuda_request(torch)
    if count:
        parent = os.path.dirname(_HERE)
        if parent not in sys.path:
            sys.path.append(parent)
        import devcheck_fake_cuda

        # The devices the program sees are decided at its first CUDA call
        # (CUDA_VISIBLE_DEVICES), not now.
        devcheck_fake_cuda.start(count=count, force=force)
    else:
        _watch_cuda_questions(torch)


class _AfterTorchImport(importlib.abc.MetaPathFinder):
    """Finds torch as the other finders do, and runs _after_torch once the
    torch package has been executed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_patch(module):
            exec_module(module)
            _after_torch(module)

        spec.loader.exec_module = exec_then_patch
        return spec


_run_the_next_sitecustomize()
if "torch" in sys.modules:
    _after_torch(sys.modules["torch"])
else:
    sys.meta_path.insert(0, _AfterTorchImport())
