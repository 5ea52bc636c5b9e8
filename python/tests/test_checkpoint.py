"""inspect() and remap() over the torch-free checkpoint library."""

import pytest
import torch

import devcheck


def test_inspect_shows_where_tensors_were_saved_and_remap_moves_them(tmp_path):
    src = tmp_path / "model.pt"
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2)}, src)
    info = devcheck.inspect(src)
    assert not info.has_errors()
    assert set(info.devices) == {"cpu"}
    assert "w" in info.to_text()

    on_gpu = tmp_path / "gpu.pt"
    report = devcheck.remap(src, on_gpu, to="cuda:0")
    assert "cuda:0" in report.to_text()
    assert set(devcheck.inspect(on_gpu).devices) == {"cuda:0"}
    back = tmp_path / "back.pt"
    devcheck.remap(on_gpu, back, map_location={"cuda:0": "cpu"})
    loaded = torch.load(back)
    assert torch.equal(loaded["w"], torch.arange(6.0).reshape(2, 3))


def test_remap_refuses_to_overwrite_naming_the_file(tmp_path):
    src = tmp_path / "a.pt"
    torch.save({"x": torch.ones(1)}, src)
    devcheck.remap(src, tmp_path / "b.pt", to="cpu")
    with pytest.raises(devcheck.DevcheckIOError, match="b.pt"):
        devcheck.remap(src, tmp_path / "b.pt", to="cpu")


def test_inspect_of_a_file_that_is_not_a_checkpoint_names_it(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(devcheck.FormatError, match="bad.pt"):
        devcheck.inspect(bad)
