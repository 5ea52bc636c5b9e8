"""Run an unmodified Python program under devcheck's fake CUDA, without the
devcheck CLI: turn fake CUDA on, then run the program as `python3 prog.py`
would (same sys.argv, `__name__ == "__main__"`, its folder first on sys.path).

    /usr/bin/python3 launch.py --lib build/src/libdevcheck_fake_device.so \
        [--devices N] prog.py [ARGS...]

The corpus runner uses it when no devcheck CLI is given; `devcheck run
--fake-cuda=N` does the same and adds the sanitizer's report.
"""

import argparse
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_PYTHON = os.path.normpath(os.path.join(HERE, "..", "..", "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", required=True, help="libdevcheck_fake_device.so")
    parser.add_argument("--devices", type=int, default=2, help="fake CUDA devices (default 2)")
    parser.add_argument("--python-dir", default=REPO_PYTHON,
                        help="folder of the devcheck_fake_cuda package (default: this checkout's python/)")
    parser.add_argument("--start-method", help="multiprocessing's start method for the program")
    parser.add_argument("program")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()

    sys.path.insert(0, options.python_dir)
    import devcheck_fake_cuda  # noqa: E402  (needs the path above)

    devcheck_fake_cuda.install(options.lib, options.devices)
    sys.path.remove(options.python_dir)

    if options.start_method:
        import multiprocessing

        multiprocessing.set_start_method(options.start_method)
    program = os.path.abspath(options.program)
    sys.argv = [program] + options.args
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")


if __name__ == "__main__":
    main()
