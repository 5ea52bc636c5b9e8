"""devcheck's pytest plugin (registered by entry point; off unless asked).

    pytest --devcheck      runs each test under devcheck.watch() and fails a
                           test whose ops mixed devices, naming the op and lines
    pytest --devcheck-fake-cuda[=N]
                           turns fake CUDA on for the whole session (N devices,
                           default 2): tests written for CUDA run their CUDA
                           paths on a machine without a GPU

Fixtures, always available: fake_device (fake device 0) and fake_devices
(fake devices 0 and 1), so device-generic tests run on a CPU-only CI; and
fake_cuda (the fake CUDA devices, turned on for the rest of the session).
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
        "--devcheck-fake-cuda",
        nargs="?",
        type=int,
        const=2,
        default=None,
        metavar="N",
        help="turn devcheck's fake CUDA on for the session: N fake CUDA devices (1..8, default 2)",
    )
    group.addoption(
        "--devcheck-provenance",
        choices=("on", "off"),
        default="on",
        help="with --devcheck: remember where tensors were made (default on)",
    )


def pytest_configure(config):
    count = config.getoption("devcheck_fake_cuda")
    if count is None:
        return
    if not 1 <= count <= 8:
        raise pytest.UsageError(f"--devcheck-fake-cuda={count}: expected a number of fake CUDA devices from 1 to 8")
    import devcheck

    try:
        devcheck.fake_cuda(count)
    except devcheck.DevcheckError as e:
        raise pytest.UsageError(str(e).replace("fake_cuda(force=True)", "devcheck.fake_cuda(force=True)")) from None


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


@pytest.fixture
def fake_cuda():
    """devcheck's fake CUDA devices (a list of torch.device, cuda:0 first):
    turned on at first use, with --devcheck-fake-cuda's count or 2, and on
    for the rest of the session (fake CUDA cannot be turned off)."""
    import devcheck
    import devcheck_fake_cuda

    return devcheck.fake_cuda(devcheck_fake_cuda.device_count() or 2)
