"""devcheck.watch(): the sanitizer in-process, its report and its lines."""

import json
import sys

import pytest
import torch

import devcheck


def line_of(marker):
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return n
    raise AssertionError(marker)


def test_a_stray_computed_from_a_factorys_result_names_both_lines(fake_device):
    with devcheck.watch(mode="report") as w:
        steps = torch.arange(4)  # chain-starts
        scale = 2.0 ** (steps / 4)  # derived-here
        try:
            scale * torch.ones(4, device=fake_device)  # chain-op
        except RuntimeError:
            pass
    (f,) = w.report().mismatches
    assert f.site.startswith(f"{__file__}:{line_of('# chain-op')}")
    (stray,) = [a for a in f.arguments if a.stray]
    assert stray.origin.startswith(f"{__file__}:{line_of('# derived-here')}")
    assert stray.derived_from_op == "aten::arange"
    assert stray.derived_from.startswith(f"{__file__}:{line_of('# chain-starts')}")


def test_a_planted_mismatch_is_reported_with_the_users_lines(fake_device):
    with devcheck.watch(mode="report") as w:
        a = torch.ones(4)  # made-here
        b = torch.ones(4, device=fake_device)
        try:
            a + b  # op-here
        except RuntimeError:
            pass
    report = w.report()
    assert not report.ok and len(report.mismatches) == 1
    f = report.mismatches[0]
    assert f.op == "aten::add"
    assert f.site.startswith(f"{__file__}:{line_of('# op-here')}")
    stray = [a for a in f.arguments if a.stray]
    assert [a.name for a in stray] == ["self"]
    assert stray[0].origin.startswith(f"{__file__}:{line_of('# made-here')}")
    assert stray[0].origin_op == "aten::ones"
    text = report.to_text()
    assert "device mismatch in aten::add at " + __file__ in text
    data = json.loads(report.to_json())
    assert data["summary"]["mismatches"] == 1


def test_the_report_has_the_transfer_ledger_and_syncs(fake_device, tmp_path):
    with devcheck.watch(mode="report", trace=True) as w:
        x = torch.ones(16)
        for _ in range(3):
            y = x.to(fake_device)  # copy-here
        float(y.sum().item())  # sync-here
    report = w.report()
    assert report.ok
    copies = [t for t in report.transfers if t.direction == f"cpu -> {fake_device}"]
    assert copies and copies[0].count == 3
    assert copies[0].site.startswith(f"{__file__}:{line_of('# copy-here')}")
    assert [(s.op, s.count) for s in report.syncs] == [("aten::item", 1)]
    assert report.syncs[0].site.startswith(f"{__file__}:{line_of('# sync-here')}")
    trace = tmp_path / "trace.json"
    report.write_trace(trace)
    assert "traceEvents" in json.loads(trace.read_text())


def test_fail_mode_raises_device_mismatch_error_when_the_block_ends(fake_device):
    with pytest.raises(devcheck.DeviceMismatchError, match="device mismatch in aten::mul"):
        with devcheck.watch(mode="fail"):
            try:
                torch.ones(2) * torch.ones(2, device=fake_device)
            except RuntimeError:
                pass


def test_a_clean_block_reports_nothing(fake_device):
    with devcheck.watch(mode="fail") as w:
        (torch.ones(2, device=fake_device) * 2).sum()
    assert w.report().ok and w.report().ops_checked > 0


def test_a_second_watch_at_once_is_refused_naming_the_first():
    with devcheck.watch():
        with pytest.raises(devcheck.InvalidArgumentError):
            with devcheck.watch():
                pass


def test_a_bad_mode_is_refused_with_the_modes():
    with pytest.raises(devcheck.InvalidArgumentError, match="report"):
        devcheck.watch(mode="loud")


def test_ops_after_the_block_are_not_watched(fake_device):
    with devcheck.watch() as w:
        pass
    try:
        torch.ones(2) + torch.ones(2, device=fake_device)
    except RuntimeError:
        pass
    assert w.report().ok
    print(sys.version)


def test_clear_findings_starts_a_new_part_that_still_knows_older_tensors(fake_device):
    with devcheck.watch(mode="report") as w:
        old = torch.arange(3.0)  # made-in-the-first-part
        b = torch.ones(3, device=fake_device)
        try:
            old * b  # first-part-op
        except RuntimeError:
            pass
        assert len(w.report().mismatches) == 1
        w.clear_findings()
        assert w.report().ok and w.report().ops_checked == 0
        try:
            b - old  # second-part-op
        except RuntimeError:
            pass
        (f,) = w.report().mismatches
    assert f.op == "aten::sub"
    assert f.site.startswith(f"{__file__}:{line_of('# second-part-op')}")
    (stray,) = [a for a in f.arguments if a.stray]
    assert stray.origin_op == "aten::arange"
    assert stray.origin.startswith(f"{__file__}:{line_of('# made-in-the-first-part')}")


def test_the_notebooks_background_watch_steps_aside_for_the_programs_own(fake_device, monkeypatch):
    from devcheck import _watch

    background = devcheck.watch(mode="report")
    monkeypatch.setattr(_watch, "_background", background)
    with background:
        with devcheck.watch(mode="report") as own:  # not refused: the background one pauses
            assert own.running and not background.running
            try:
                torch.ones(2) + torch.ones(2, device=fake_device)  # own-op
            except RuntimeError:
                pass
        assert background.running
        try:
            torch.zeros(2) * torch.ones(2, device=fake_device)  # background-op
        except RuntimeError:
            pass
        seen = background.report()
    assert [f.op for f in own.report().mismatches] == ["aten::add"]
    # The background watch saw what ran after it started again, not the program's own block.
    assert [f.op for f in seen.mismatches] == ["aten::mul"]
    assert not background.running
