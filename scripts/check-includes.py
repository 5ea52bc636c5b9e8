#!/usr/bin/env python3
"""The include check behind docs/architecture.md: every #include in src/,
tools/, apps/ and python/src/ against the layering that page draws.

    check-includes.py [SOURCE_DIR]

Each room (a folder of src/, or tools/apps/python) may include its own
headers, the rooms below it that the table ROOMS names, the public headers
(include/devcheck/...) and the system's. A torch-free room may include no
LibTorch header (<torch/...>, <ATen/...>, <c10/...>, <caffe2/...>), not even
through a public devcheck header: which public headers are torch-free is
worked out from their own includes, not listed by hand.

Prints one line per violation (file:line: what, why) and exits 1 if there is
any, 0 otherwise. ctest runs it as `architecture.IncludesFollowTheLayers`.
"""

import os
import re
import sys

# room: (rooms below it that it may include, torch-free?)
# A room's own headers are always allowed. Keep in step with
# docs/architecture.md ("Layers and libraries").
ROOMS = {
    # torch-free floor
    "process": ((), True),
    "format": ((), True),
    "launch": (("process",), True),
    "lint": (("format",), True),
    "lsp": (("lint", "format"), True),
    # LibTorch from here up
    "detail": (("format",), False),
    "core": (("detail", "format"), False),
    "checkpoint": (("core", "detail", "format"), False),
    "sanitizer": (("core", "detail", "format", "process"), False),
    "train": (("core", "detail"), False),
    "distributed": (("core", "detail", "process"), False),
    "fake": (("core", "detail", "format"), False),
    "testing": (("fake", "core", "detail"), False),
}
# The top: programs and bindings over the libraries. They may include any
# room's headers; only their own torch-freeness is not checked here (the
# CLI's torch-free half is kept so by CMake: it does not link LibTorch).
TOPS = {
    "tools/devcheck": "tools",
    "apps/classifier": "classifier",
    "python/src": "python",
}
TORCH_PREFIXES = ("torch/", "ATen/", "c10/", "caffe2/")
SOURCE_SUFFIXES = (".h", ".cc", ".inc", ".hxx", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1), m.group(2)


def torch_free_public_headers(root):
    """The public headers (devcheck/...) that reach no LibTorch header."""
    include_dir = os.path.join(root, "include")
    headers = {}
    for dirpath, _, files in os.walk(os.path.join(include_dir, "devcheck")):
        for name in files:
            if name.endswith((".h", ".h.in")):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, include_dir)
                if rel.endswith(".h.in"):
                    rel = rel[: -len(".in")]
                headers[rel] = [target for _, _, target in includes(path)]
    free = {}

    def is_free(header, seen=()):
        if header in free:
            return free[header]
        if header in seen:
            return True
        result = True
        for target in headers.get(header, ()):
            if target.startswith(TORCH_PREFIXES):
                result = False
            elif target.startswith("devcheck/") and target in headers:
                result = result and is_free(target, seen + (header,))
        free[header] = result
        return result

    return {h for h in headers if is_free(h)}


def room_of(rel):
    for top, room in TOPS.items():
        if rel.startswith(top + "/"):
            return room
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def check(root):
    free_public = torch_free_public_headers(root)
    rooms_present = {d for d in os.listdir(os.path.join(root, "src"))
                     if os.path.isdir(os.path.join(root, "src", d))}
    problems = []
    unknown = sorted(rooms_present - set(ROOMS))
    for room in unknown:
        problems.append(f"src/{room}: a room docs/architecture.md and this check do not know;"
                        " add it to ROOMS with the rooms it may include")
    for base in ["src"] + list(TOPS):
        for dirpath, _, files in os.walk(os.path.join(root, base)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                room = room_of(rel)
                if room is None or room in unknown:
                    continue
                top = room in TOPS.values()
                below, torch_free = ((), False) if top else ROOMS[room]
                for number, bracket, target in includes(path):
                    where = f"{rel}:{number}: #include {bracket}{target}"
                    first = target.split("/", 1)[0]
                    if torch_free and target.startswith(TORCH_PREFIXES):
                        problems.append(f"{where}: src/{room} is torch-free (no LibTorch header)")
                    elif first == "devcheck" and "/" in target:
                        if torch_free and target not in free_public:
                            problems.append(f"{where}: src/{room} is torch-free and this public"
                                            " header reaches LibTorch")
                    elif bracket == '"' and first in ROOMS and first != room and not top:
                        if first not in below:
                            allowed = ", ".join(below) or "none"
                            problems.append(f"{where}: src/{room} may include its own headers"
                                            f" and those of: {allowed}")
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check-includes: {len(problems)} include(s) against the layering"
              " (docs/architecture.md)", file=sys.stderr)
        return 1
    print("check-includes: every include follows the layering")
    return 0


if __name__ == "__main__":
    sys.exit(main())
