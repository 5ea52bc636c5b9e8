"""select_device, check, check_on, module_device, audit, to_device, device_scope, fake_device."""

import collections
import dataclasses
import threading

import pytest
import torch

import devcheck


def test_select_device_auto_says_why(monkeypatch):
    monkeypatch.delenv("DEVCHECK_DEVICE", raising=False)
    device, reason = devcheck.select_device("auto")
    assert isinstance(device, torch.device)
    if not torch.cuda.is_available():
        assert device == torch.device("cpu")
        assert reason.startswith("cpu: ")


def test_devcheck_device_overrides_the_program_default(monkeypatch):
    monkeypatch.setenv("DEVCHECK_DEVICE", "fake:1")
    assert devcheck.select_device("cpu").device == devcheck.fake_device(1)
    monkeypatch.setenv("DEVCHECK_DEVICE", "cpu")
    assert devcheck.select_device("auto").device == torch.device("cpu")


def test_select_device_rejects_a_malformed_spec_naming_it(monkeypatch):
    monkeypatch.delenv("DEVCHECK_DEVICE", raising=False)
    with pytest.raises(devcheck.InvalidArgumentError, match="'cdua:0'"):
        devcheck.select_device("cdua:0")
    monkeypatch.setenv("DEVCHECK_DEVICE", "nope")
    with pytest.raises(devcheck.InvalidArgumentError, match="DEVCHECK_DEVICE"):
        devcheck.select_device("auto")


def test_select_device_names_a_missing_cuda_device(monkeypatch):
    monkeypatch.delenv("DEVCHECK_DEVICE", raising=False)
    if torch.cuda.device_count() > 7:
        pytest.skip("this machine has cuda:7")
    with pytest.raises(devcheck.DeviceUnavailableError, match="cuda:7"):
        devcheck.select_device("cuda:7")


def test_check_names_the_stray_tensor_both_devices_and_the_fix(fake_device):
    x = torch.ones(3)
    w = torch.ones(3, device=fake_device)
    with pytest.raises(devcheck.DeviceMismatchError) as e:
        devcheck.check("linear", x=x, w=w)
    text = str(e.value)
    assert "device mismatch in linear" in text
    assert "x" in text and "<- not on " + str(fake_device) in text
    assert "fix: move x to " + str(fake_device) in text


def test_device_mismatch_error_is_caught_inside_the_block(fake_device):
    caught = None
    try:
        devcheck.check("add", a=torch.ones(2), b=torch.ones(2, device=fake_device))
    except RuntimeError as e:  # any RuntimeError handler catches it
        caught = e
    assert isinstance(caught, devcheck.DeviceMismatchError)


def test_check_passes_on_one_device_and_allows_0_dim_cpu_tensors(fake_device):
    devcheck.check("add", a=torch.ones(2, device=fake_device), s=torch.tensor(2.0), none=None)
    devcheck.check_on(fake_device, "step", a=torch.ones(2, device=fake_device))
    with pytest.raises(devcheck.DeviceMismatchError, match="cpu"):
        devcheck.check_on(fake_device, "step", a=torch.ones(2))


def test_check_rejects_a_non_tensor_by_name():
    with pytest.raises(TypeError, match="'n' is a int"):
        devcheck.check("f", n=3)


def test_module_device_and_a_mixed_module_named_by_tensor(fake_device):
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    assert devcheck.module_device(model) == torch.device("cpu")
    model[1].running_mean = model[1].running_mean.to(fake_device)
    with pytest.raises(devcheck.DeviceMismatchError) as e:
        devcheck.module_device(model)
    assert "module 'Sequential' is spread over 2 devices" in str(e.value)
    assert f"{fake_device} (1 tensor): 1.running_mean" in str(e.value)
    with pytest.raises(devcheck.InvalidArgumentError, match="no parameters or buffers"):
        devcheck.module_device(torch.nn.ReLU())


def test_audit_names_a_stray_buffer(fake_device):
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3)).to(fake_device)
    model[1].running_var = model[1].running_var.cpu()
    report = devcheck.audit(model)
    assert not report.ok
    assert report.expected == fake_device
    assert [m.name for m in report.misplaced] == ["1.running_var"]
    assert report.misplaced[0].is_buffer and report.misplaced[0].device == "cpu"
    assert "1.running_var (buffer) on cpu" in report.to_text()
    assert devcheck.audit(model, expected="cpu").misplaced[0].name == "0.weight"
    # the audit changed nothing
    assert model[0].weight.requires_grad and model[0].weight.device == fake_device


P = collections.namedtuple("P", "a b")


@dataclasses.dataclass
class Batch:
    x: torch.Tensor
    meta: dict
    n: int = 3


def test_to_device_moves_nested_values_keeping_their_types(fake_device):
    t = torch.arange(4.0)
    value = {"p": P(t, [t, (t, "s")]), "b": Batch(t, {"y": t}), "od": collections.OrderedDict(z=t), "k": 5}
    out = devcheck.to_device(value, fake_device)
    assert isinstance(out["p"], P) and out["p"].a.device == fake_device
    assert out["p"].b[1][0].device == fake_device and out["p"].b[1][1] == "s"
    assert isinstance(out["b"], Batch) and out["b"].x.device == fake_device and out["b"].meta["y"].device == fake_device
    assert isinstance(out["od"], collections.OrderedDict) and out["od"]["z"].device == fake_device
    assert out["k"] == 5
    assert torch.equal(out["b"].x.cpu(), t)
    assert value["p"].a.device == torch.device("cpu")  # the input is untouched


def test_device_scope_makes_factories_and_new_modules_land_on_its_device(fake_device):
    with devcheck.device_scope(fake_device) as device:
        assert device == fake_device
        assert torch.zeros(2).device == fake_device
        assert torch.nn.Linear(2, 2).weight.device == fake_device
        assert torch.zeros(2, device="cpu").device == torch.device("cpu")  # an explicit device wins
        with devcheck.device_scope("cpu"):
            assert torch.ones(1).device == torch.device("cpu")
        assert torch.ones(1).device == fake_device
        seen = []
        t = threading.Thread(target=lambda: seen.append(torch.zeros(1).device))
        t.start()
        t.join()
        assert seen == [torch.device("cpu")]  # other threads are unaffected
    assert torch.zeros(1).device == torch.device("cpu")


def test_fake_device_index_out_of_range_says_how_many():
    with pytest.raises(devcheck.InvalidArgumentError, match="out of range"):
        devcheck.fake_device(9)


def test_fake_device_trains_a_small_model_bitwise_equal_to_the_cpu(fake_devices):
    def train(device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
        torch.manual_seed(1)
        x = torch.randn(32, 8)
        y = torch.randint(0, 2, (32,))
        model.to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for _ in range(5):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            opt.step()
        return [p.detach().cpu() for p in model.parameters()]

    cpu = train("cpu")
    fake = train(fake_devices[1])
    assert all(torch.equal(a, b) for a, b in zip(cpu, fake))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(3, device=fake_devices[0]) + torch.ones(3, device=fake_devices[1])
