"""devcheck's pytest plugin (registered by entry point; off unless asked).

    pytest --devcheck      runs each test under devcheck.watch() and fails a
                           test whose ops mixed devices, naming the op and lines

Fixtures, always available: fake_device (fake device 0) and fake_devices
(fake devices 0 and 1), so device-generic tests run on a CPU-only CI.
"""

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("devcheck")
    group.addoption(
        "--devcheck",
        action="store_true",
        default=False,
        help="run each test under devcheck's device sanitizer; a test whose ops mixed devices fails",
    )
    group.addoption(
        "--devcheck-provenance",
        choices=("on", "off"),
        default="on",
        help="with --devcheck: remember where tensors were made (default on)",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    config = pyfuncitem.config
    if not config.getoption("devcheck"):
        yield
        return
    import devcheck

    w = devcheck.watch(mode="report", provenance=config.getoption("devcheck_provenance") == "on")
    with w:
        outcome = yield
    report = w.report()
    mismatches = report.mismatches
    if mismatches and outcome.excinfo is None:
        lines = [f"[devcheck] {pyfuncitem.nodeid}: {len(mismatches)} op(s) mixed devices"]
        lines += [f.message for f in mismatches]
        pytest.fail("\n".join(lines), pytrace=False)


@pytest.fixture
def fake_device():
    """devcheck's fake device 0 (a torch.device): a second device on a CPU-only machine."""
    import devcheck

    return devcheck.fake_device(0)


@pytest.fixture
def fake_devices():
    """Fake devices 0 and 1 (torch.device each), for tests of two-device code."""
    import devcheck

    return devcheck.fake_device(0), devcheck.fake_device(1)
