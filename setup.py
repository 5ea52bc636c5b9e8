"""Builds the devcheck Python package against the torch of the Python that runs it.

    pip install --no-build-isolation --no-deps .

The extension and devcheck's runtime libraries come from the project's own
CMake (python/CMakeLists.txt, -DDEVCHECK_BUILD_PYTHON=ON), configured for this
Python's torch: its TorchConfig.cmake (found where it is, see find_torch_dir),
its _GLIBCXX_USE_CXX11_ABI and its version. What the build used is printed
and recorded in devcheck/_build_info.py, which `import devcheck` checks.

Environment: DEVCHECK_PIP_BUILD_DIR (the CMake build folder; default
build-pip-<python>-torch<version> in the checkout), Torch_DIR (a folder with
TorchConfig.cmake, tried first), CMAKE_ARGS (extra configure arguments),
DEVCHECK_JOBS (parallel jobs; default the CPU count).
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def torch_facts():
    try:
        import torch
    except ImportError as e:
        raise SystemExit(
            f"[devcheck] setup: this Python ({sys.executable}) cannot import torch: {e}\n"
            "fix: install torch first (Debian: python3-torch), and build with --no-build-isolation "
            "so the build sees it"
        ) from None

    return {
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "torch_dir": os.path.dirname(torch.__file__),
        "cmake_prefix_path": getattr(torch.utils, "cmake_prefix_path", None),
    }


def version_triple(text):
    """'1.13.0a0+git' -> (1, 13, 0)."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    return tuple(int(x or 0) for x in m.groups()) if m else None


def torchconfig_version(folder):
    text = (folder / "TorchConfigVersion.cmake").read_text(errors="replace")
    m = re.search(r'set\(PACKAGE_VERSION "([^"]+)"\)', text)
    return m.group(1) if m else None


def find_torch_dir(facts):
    """The folder with TorchConfig.cmake for this torch, and the folders tried.

    torch.utils.cmake_prefix_path (a wheel's torch/share/cmake) first, then the
    system folders where Debian's libtorch-dev puts it; a folder counts only
    when its TorchConfigVersion.cmake has this torch's version.
    """
    candidates = []
    if os.environ.get("Torch_DIR"):
        candidates.append(pathlib.Path(os.environ["Torch_DIR"]))
    if facts["cmake_prefix_path"]:
        candidates.append(pathlib.Path(facts["cmake_prefix_path"]) / "Torch")
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for prefix in ("/usr/local", "/usr"):
        if multiarch:
            candidates.append(pathlib.Path(prefix, "lib", multiarch, "cmake", "Torch"))
        candidates.append(pathlib.Path(prefix, "lib", "cmake", "Torch"))
        candidates.append(pathlib.Path(prefix, "share", "cmake", "Torch"))
    wanted = version_triple(facts["torch_version"])
    tried = []
    for folder in candidates:
        if not (folder / "TorchConfig.cmake").is_file():
            tried.append(f"{folder} (no TorchConfig.cmake)")
            continue
        found = torchconfig_version(folder)
        if found is None or version_triple(found) != wanted:
            tried.append(f"{folder} (LibTorch {found}, not {facts['torch_version']})")
            continue
        return folder, tried
    raise SystemExit(
        f"[devcheck] setup: no TorchConfig.cmake for torch {facts['torch_version']} "
        f"({facts['torch_dir']}); tried: " + "; ".join(tried) + "\n"
        "fix: install the LibTorch development files of this torch (Debian: libtorch-dev), "
        "or set Torch_DIR to the folder that has its TorchConfig.cmake"
    )


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        facts = torch_facts()
        torch_dir, _ = find_torch_dir(facts)
        build_dir = pip_build_dir()
        build_dir.mkdir(parents=True, exist_ok=True)
        print(
            f"[devcheck] setup: torch {facts['torch_version']} (CUDA {facts['cuda_version'] or 'none'}, "
            f"_GLIBCXX_USE_CXX11_ABI={int(facts['cxx11_abi'])}) from {facts['torch_dir']}; "
            f"TorchConfig.cmake from {torch_dir}; build folder {build_dir}",
            flush=True,
        )
        env = dict(os.environ)
        # As the Makefile: ccache across checkouts and precompiled headers.
        # CCACHE_BASEDIR makes the paths ccache hashes relative to the build
        # folder, so a build folder one level below the checkout (as the
        # Makefile's build/) compiles to the same hashes as the main build
        # and as any earlier pip build: hits, not a cold build per folder.
        env.setdefault("CCACHE_SLOPPINESS", "pch_defines,time_macros,include_file_mtime,include_file_ctime")
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        env.setdefault("CCACHE_NOHASHDIR", "1")
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            "-DDEVCHECK_BUILD_PYTHON=ON",
            # The extension needs no lint (nor its npm grammar).
            "-DDEVCHECK_BUILD_LINT=OFF",
            "-DDEVCHECK_BUILD_TESTS=OFF",
            "-DDEVCHECK_BUILD_BENCH=OFF",
            "-DDEVCHECK_BUILD_EXAMPLES=OFF",
            # The package's libraries find each other beside the module.
            "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON",
            f"-DTorch_DIR={torch_dir}",
            f"-DDEVCHECK_PYTHON_EXECUTABLE={sys.executable}",
            f"-DDEVCHECK_TORCH_CXX11_ABI={int(facts['cxx11_abi'])}",
            *os.environ.get("CMAKE_ARGS", "").split(),
        ]
        jobs = os.environ.get("DEVCHECK_JOBS") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True, env=env)
        subprocess.run(
            ["cmake", "--build", str(build_dir), "--target", "devcheck_python", "-j", jobs],
            check=True, env=env,
        )
        package = pathlib.Path(self.build_lib) / "devcheck"
        package.mkdir(parents=True, exist_ok=True)
        files = (build_dir / "python" / "package-files.txt").read_text().split()
        strip = shutil.which("strip")
        for f in files:
            target = package / os.path.basename(f)
            shutil.copy2(f, target)
            if strip:  # the build keeps its debug info; the package does not need it
                subprocess.run([strip, "--strip-debug", str(target)], check=True)
        (package / "_build_info.py").write_text(
            '"""What this devcheck package was built for (written by setup.py)."""\n'
            f"TORCH_VERSION = {facts['torch_version']!r}\n"
            f"CUDA_VERSION = {facts['cuda_version']!r}\n"
            f"CXX11_ABI = {facts['cxx11_abi']!r}\n"
            f"TORCH_DIR = {str(torch_dir)!r}\n"
            f"PYTHON = {sys.executable!r}\n"
            f"SOURCE_DIR = {str(ROOT)!r}\n"
        )


def pip_build_dir():
    folder = pathlib.Path(
        os.environ.get("DEVCHECK_PIP_BUILD_DIR")
        # One level below the checkout, as build/: see CCACHE_BASEDIR above.
        or ROOT / f"build-pip-py{sys.version_info[0]}.{sys.version_info[1]}-torch{torch_facts()['torch_version']}"
    ).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


setup(
    # setuptools' own folders stay in the build folder too (never the checkout's build/).
    options={
        "build": {"build_base": str(pip_build_dir() / "setuptools")},
        "egg_info": {"egg_base": str(pip_build_dir())},
    },
    ext_modules=[Extension("devcheck._devcheck", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
