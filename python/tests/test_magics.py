"""The Jupyter magics (devcheck/magics.py) in a real kernel: `jupyter nbconvert
--execute` (Debian's jupyter-nbconvert and python3-ipykernel) runs a notebook
with a stray CPU tensor planted in one cell and used under %%devcheck in a
later one, on fake CUDA; the rendered outputs are asserted: the stray's line
in the earlier cell is named (the watch %load_ext keeps running)."""

import json
import os
import re
import subprocess
import sys

import pytest

# The editor and notebook clients are torch-independent: tested once, in the
# default lane (scripts/install-deps.sh installs them).
pytest.importorskip("nbconvert", reason="jupyter-nbconvert and python3-ipykernel: installed by scripts/install-deps.sh in the default lane; the torch lanes' roots have no Jupyter or pylsp")
pytest.importorskip("ipykernel", reason="jupyter-nbconvert and python3-ipykernel: installed by scripts/install-deps.sh in the default lane; the torch lanes' roots have no Jupyter or pylsp")

CELLS = [
    "%load_ext devcheck",
    "%devcheck_fake_cuda 1",
    'import torch\nx = torch.ones(3, device="cuda")',
    "stray = torch.arange(3.0)  # planted: made on the CPU",
    "%%devcheck\n"
    "y = x * 2\n"
    "w = torch.zeros(3)  # made on the CPU, in this cell\n"
    "try:\n"
    "    z = y + w\n"
    "except RuntimeError as e:\n"
    '    print("raised:", str(e).splitlines()[0])\n'
    "total = y.sum().item()\n"
    "try:\n"
    "    v = x - stray  # the stray tensor of In [4]\n"
    "except RuntimeError:\n"
    "    pass\n"
    "batch = [torch.full((256,), float(i)).to(x.device) for i in range(4)]",
    "%devcheck_lint",
    "%devcheck_origins off",
    "%%devcheck\ntry:\n    x - stray\nexcept RuntimeError:\n    pass",
]


def notebook():
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": text} for i, text in enumerate(CELLS)]
    return {"cells": cells, "metadata": {"kernelspec": {"name": "devcheck-test", "display_name": "t",
                                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def text_of(output, kind="text/plain"):
    if output["output_type"] == "stream":
        return "".join(output["text"])
    return "".join(output.get("data", {}).get(kind, ""))


@pytest.fixture
def executed(tmp_path):
    cli = os.environ.get("DEVCHECK_CLI")
    if not cli:
        pytest.fail("DEVCHECK_CLI is not set: run_suite.sh sets it to the build's devcheck")
    # A kernel on this Python (the one with the devcheck package), found first.
    spec = tmp_path / "jupyter" / "kernels" / "devcheck-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "devcheck test", "language": "python"}))
    nb = tmp_path / "stray.ipynb"
    nb.write_text(json.dumps(notebook(), indent=1))
    env = dict(os.environ, JUPYTER_PATH=str(tmp_path / "jupyter"), DEVCHECK_CLI=cli,
               JUPYTER_PLATFORM_DIRS="1", HOME=str(tmp_path))
    r = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                        "--ExecutePreprocessor.timeout=300", "--output", "out.ipynb", str(nb)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads((tmp_path / "out.ipynb").read_text())
    for i, cell in enumerate(out["cells"]):
        # The transcript the closing note shows.
        print(f"--- In [{i + 1}]: {CELLS[i].splitlines()[0]}")
        for o in cell["outputs"]:
            print(text_of(o))
    return out["cells"]


def test_devcheck_cell_shows_the_mismatch_where_the_stray_tensor_was_made_copies_and_syncs(executed):
    assert "devcheck: fake CUDA on, 1 device: cuda:0" in text_of(executed[1]["outputs"][0])
    outputs = executed[4]["outputs"]
    printed = "".join(text_of(o) for o in outputs if o["output_type"] == "stream")
    assert "raised: Expected all tensors to be on the same device" in printed
    shown = [o for o in outputs if o["output_type"] == "display_data"]
    assert len(shown) == 1, outputs
    text = text_of(shown[0])
    html = text_of(shown[0], "text/html")
    assert text.startswith("devcheck: 2 device mismatches, "), text
    # The op's line in this cell (In [5], line 5: `z = y + w`) and where the
    # stray tensor was made (In [5], line 3).
    assert "mismatch: aten::add at In [5], line 5" in text, text
    assert "made by aten::zeros at In [5], line 3" in text, text
    # A stray tensor an earlier, unwatched cell made: %load_ext's watch knew
    # where (In [4], line 1), and the cells before this one are not reported.
    assert "mismatch: aten::sub at In [5], line 10" in text, text
    assert "made by aten::arange at In [4], line 1" in text, text
    assert "origin unknown" not in text and "at unknown" not in text, text
    assert "<caption>device mismatches</caption>" in html
    assert "In [5], line 3" in html and "In [5], line 5" in html
    # `.item()` on line 8 makes the host wait for the device.
    assert "syncs (op, site, device, count):" in text, text
    assert "aten::item  In [5], line 8" in text, text
    assert "<caption>syncs</caption>" in html
    # Line 13's four host->device copies of 1 KiB each: one row of the copy ledger.
    assert "copies (op, direction, site, count, bytes, synchronizing):" in text, text
    # (Python 3.11 names the comprehension's frame <listcomp>; 3.12+ inlines it: <module>.)
    assert re.search(r"aten::to  cpu -> cuda:0  In \[5\], line 13 \(<(listcomp|module)>\)  4  4096  no", text), text
    assert "<caption>copy ledger</caption>" in html
    assert re.search(r"<td>In \[5\], line 13 \(&lt;(listcomp|module)&gt;\)</td><td>4</td><td>4096</td>", html), html


def test_devcheck_lint_lints_the_cells_run_so_far(executed):
    text = "".join(text_of(o) for o in executed[5]["outputs"])
    assert "In [5], line 3:5: DC101 torch.zeros(...) without device= makes a tensor on the CPU, and In [5], line 5" in text, text
    # The stray of In [4] meets a cuda tensor in In [5]: lint follows it across cells.
    assert "In [4], line 1:9: DC101 torch.arange(...) without device= makes a tensor on the CPU, and In [5], line 10" in text, text
    assert "devcheck lint: 2 findings in 6 cells" in text, text


def test_with_origins_off_a_devcheck_cell_watches_only_itself(executed):
    said = "".join(text_of(o) for o in executed[6]["outputs"])
    assert "devcheck: origins off: only %%devcheck cells are watched" in said, said
    (shown,) = [o for o in executed[7]["outputs"] if o["output_type"] == "display_data"]
    text = text_of(shown)
    assert text.startswith("devcheck: 1 device mismatch, "), text
    # Nothing watched In [4] any more when this cell ran: its line is unknown.
    assert "mismatch: aten::sub at In [8], line 3" in text, text
    assert "stray tensor other (cpu) made by ? at unknown" in text, text
