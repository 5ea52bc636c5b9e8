"""scripts/check-includes.py on small planted trees: each kind of include
against the layering is named with its file, line and reason; a clean tree
passes. Run by ctest as architecture.CheckIncludesNamesEachViolation."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "check-includes.py")


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class CheckIncludes(unittest.TestCase):
    def tree(self, files):
        root = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ["rm", "-rf", root])
        write(root, "include/devcheck/export.h", "#pragma once\n")
        write(root, "include/devcheck/device.h", '#include <c10/core/Device.h>\n#include "devcheck/export.h"\n')
        write(root, "include/devcheck/format/units.h", '#include "devcheck/export.h"\n')
        write(root, "include/devcheck/check.h", '#include "devcheck/device.h"\n')
        write(root, "src/format/units.cc", '#include "devcheck/format/units.h"\n#include "format/output.h"\n')
        write(root, "src/core/device.cc",
              '#include <torch/torch.h>\n#include "detail/names.h"\n#include "format/reader.h"\n')
        for rel, text in files.items():
            write(root, rel, text)
        return subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)

    def test_a_clean_tree_passes(self):
        result = self.tree({})
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("every include follows the layering", result.stdout)

    def test_libtorch_in_a_torch_free_room(self):
        result = self.tree({"src/format/zip.cc": '// x\n#include <ATen/core/Tensor.h>\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/format/zip.cc:2: #include <ATen/core/Tensor.h: src/format is torch-free", result.stdout)

    def test_libtorch_through_a_public_header(self):
        # check.h reaches c10 through device.h: found from the headers' own includes.
        result = self.tree({"src/process/child.cc": '#include "devcheck/check.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/process/child.cc:1: #include \"devcheck/check.h: src/process is torch-free"
                      " and this public header reaches LibTorch", result.stdout)

    def test_an_upward_include(self):
        result = self.tree({"src/format/pickle.cc": '#include "detail/cuda_probe.h"\n',
                            "src/train/prefetch.cc": '#include "sanitizer/engine.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/format/pickle.cc:1: #include \"detail/cuda_probe.h: src/format may include"
                      " its own headers and those of: none", result.stdout)
        self.assertIn("src/train/prefetch.cc:1: #include \"sanitizer/engine.h: src/train may include"
                      " its own headers and those of: core, detail", result.stdout)
        self.assertIn("2 include(s) against the layering", result.stderr)

    def test_a_room_the_table_does_not_know(self):
        result = self.tree({"src/gpu/kernels.cc": '#include "core/x.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/gpu: a room docs/architecture.md and this check do not know", result.stdout)

    def test_the_top_may_include_any_room(self):
        result = self.tree({"tools/devcheck/run.cc": '#include "sanitizer/engine.h"\n#include "fake/guard.h"\n'})
        self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    unittest.main()
