#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC105, FindsTorchLoadWithoutMapLocation) {
  const std::string source =
      "import torch\n"
      "state = torch.load('model.pt')\n"
      "ok = torch.load('model.pt', map_location='cpu')\n"
      "ok2 = torch.load('model.pt', 'cpu')\n"
      "unknown = torch.load(*args)\n";
  EXPECT_EQ(found(source, "DC105"), (Lines{"2 DC105"}));
  EXPECT_NE(only(source, "DC105").message.find("map_location=\"cpu\""), std::string::npos);
  EXPECT_EQ(only(source, "DC105").column, 9);
}

TEST(LintDC105, FollowsImportAliases) {
  EXPECT_EQ(found("import torch as T\nT.load(p)\n", "DC105"), (Lines{"2 DC105"}));
  EXPECT_EQ(found("from torch import load\nload(p)\n", "DC105"), (Lines{"2 DC105"}));
  // Not torch's load: a name nobody imported from torch says nothing.
  EXPECT_EQ(found("import pickle\npickle.load(f)\njson.load(f)\n", "DC105"), Lines{});
}

// A state dict saved and read back by the same function, in the same process
// (torch's quantization tests through a BytesIO, ignite's LR scheduler
// simulation through a temporary file): its tensors come back to devices
// this process has. A whole module saved so is still found (weights_only),
// and so is a load of another file, or of one saved by another function.
TEST(LintDC105, SaysNothingOnAStateDictsRoundTripInOneFunction) {
  const std::string source =
      "import io, torch\n"
      "def check(ref_model, loaded_model):\n"
      "    model_dict = ref_model.state_dict()\n"
      "    b = io.BytesIO()\n"
      "    torch.save(model_dict, b)\n"
      "    b.seek(0)\n"
      "    loaded_model.load_state_dict(torch.load(b))\n"
      "def simulate(schedulers, path):\n"
      "    objs = {f'lr_{i}': s.state_dict() for i, s in enumerate(schedulers)}\n"
      "    torch.save(objs, path.as_posix())\n"
      "    run(schedulers)\n"
      "    objs = torch.load(path.as_posix())\n"
      "def whole(model_ddp, tmp):\n"
      "    torch.save(model_ddp, tmp)\n"
      "    tmp.seek(0)\n"
      "    return torch.load(tmp)\n"
      "def other_file(model, a, b):\n"
      "    torch.save(model.state_dict(), a)\n"
      "    return torch.load(b)\n"
      "def load_only(b):\n"
      "    return torch.load(b)\n"
      "def before(model, b):\n"
      "    state = torch.load(b)\n"
      "    torch.save(model.state_dict(), b)\n"
      "    return state\n"
      "def then_whole(ref_model, b):\n"
      "    torch.save(ref_model.state_dict(), b)\n"
      "    b.seek(0)\n"
      "    torch.load(b)\n"
      "    torch.save(ref_model, b)\n"
      "    b.seek(0)\n"
      "    return torch.load(b)\n";
  EXPECT_EQ(found(source, "DC105"),
            (Lines{"16 DC105", "19 DC105", "21 DC105", "23 DC105", "32 DC105"}));
  // A whole object saved and read back with weights_only=False said (PyG's
  // test_pickle, seed 46): unpickled in the process that saved it. Without
  // it (the near miss), torch 2.6's default refuses the module.
  const std::string pickled =
      "import os.path as osp\n"
      "import torch\n"
      "def test_pickle(tmp_path):\n"
      "    path = osp.join(tmp_path, 'model.pt')\n"
      "    model = MyConv(16, 32)\n"
      "    torch.save(model, path)\n"
      "    model = torch.load(path, weights_only=False)\n"
      "def roundtrip(obj, buffer):\n"
      "    torch.save(obj, buffer)\n"
      "    buffer.seek(0)\n"
      "    return torch.load(buffer, weights_only=False)\n"
      "def refused(model, path):\n"
      "    torch.save(model, path)\n"
      "    return torch.load(path)\n";
  EXPECT_EQ(found(pickled, "DC105"), (Lines{"14 DC105"}));
  EXPECT_NE(only(pickled, "DC105").message.find("torch.load without map_location"),
            std::string::npos);
}

// torchvision's PhotoTour and ImageNet: a dataset loads the files it wrote
// itself (the same `self.x` or module-level name in both paths, through a
// `with open(...) as f` and the names the path is built from) in a file that
// puts nothing on a device. Still found: the same file with a device in it,
// a saved value that comes from the saving function's parameters (a model
// handed in), and a path the file does not write.
TEST(LintDC105, SaysNothingOnFilesTheFileWritesItselfOnTheHost) {
  const std::string dataset =
      "import os\n"
      "import torch\n"
      "META_FILE = 'meta.bin'\n"
      "class PhotoTour:\n"
      "    def __init__(self, root):\n"
      "        self.data_file = os.path.join(root, 'data.pt')\n"
      "        self.data, self.labels = torch.load(self.data_file)\n"
      "    def cache(self):\n"
      "        dataset = (read_images(self.data_dir), read_info(self.data_dir))\n"
      "        with open(self.data_file, 'wb') as f:\n"
      "            torch.save(dataset, f)\n"
      "def load_meta_file(root, file=None):\n"
      "    if file is None:\n"
      "        file = META_FILE\n"
      "    file = os.path.join(root, file)\n"
      "    return torch.load(file)\n"
      "def parse_devkit_archive(root):\n"
      "    classes = parse_meta(os.path.join(root, 'devkit'))\n"
      "    torch.save((classes, ['n01']), os.path.join(root, META_FILE))\n";
  EXPECT_EQ(found(dataset, "DC105"), Lines{});
  EXPECT_EQ(found(dataset + "x = torch.zeros(1).to(device)\n", "DC105"),
            (Lines{"7 DC105", "16 DC105"}));
  const std::string handed_in =
      "import torch\n"
      "class Saver:\n"
      "    def save(self, model):\n"
      "        state = {'model': model.state_dict()}\n"
      "        torch.save(state, self.path)\n"
      "    def load(self):\n"
      "        return torch.load(self.path)\n"
      "    def other(self):\n"
      "        return torch.load(self.resume)\n";
  EXPECT_EQ(found(handed_in, "DC105"), (Lines{"7 DC105", "9 DC105"}));
}

// A function of the file that hands its map_location (None by default) to
// torch.load, called without one, loads without one; through another such
// function too (asappresearch/flambe#101).
TEST(LintDC105, FindsCallsOfALoaderThatPassNoMapLocation) {
  const std::string source =
      "import torch\n"
      "def load_state(path, map_location=None):\n"
      "    return torch.load(path, map_location)\n"
      "def load_model(path, map_location=None):\n"
      "    return Net(load_state(path, map_location=map_location))\n"
      "class Component:\n"
      "    @classmethod\n"
      "    def load(cls, path, *, map_location=None):\n"
      "        return load_state(path, map_location=map_location)\n"
      "    def restore(self, path):\n"
      "        return self.load(path)\n"
      "a = load_state('a.pt')\n"
      "b = load_model('b.pt')\n"
      "c = load_model('c.pt', 'cpu')\n"
      "d = Component.load('d.pt', map_location='cpu')\n"
      "e = load_state('e.pt', **options)\n";
  EXPECT_EQ(testing::found(source, "DC105"), (testing::Lines{"11 DC105", "12 DC105", "13 DC105"}));
  EXPECT_NE(testing::only("import torch\n"
                          "def read(path, map_location=None):\n"
                          "    return torch.load(path, map_location=map_location)\n"
                          "x = read('a.pt')\n",
                          "DC105")
                .message.find("read(...) without map_location"),
            std::string::npos);
}

// Silent where the loader chooses a place itself, where its parameter has
// another default, and for another object's method of the same name
// (`file.read(n)`).
TEST(LintDC105, SaysNothingOfLoadersThatChooseAPlace) {
  const std::string source =
      "import torch\n"
      "def load_state(path, map_location=None):\n"
      "    if map_location is None:\n"
      "        map_location = 'cpu'\n"
      "    return torch.load(path, map_location=map_location)\n"
      "def load_cpu(path, map_location='cpu'):\n"
      "    return torch.load(path, map_location=map_location)\n"
      "class Reader:\n"
      "    def read(self, path, map_location=None):\n"
      "        return torch.load(path, map_location=map_location)\n"
      "def chunk(file, n):\n"
      "    return file.read(n)\n"
      "a = load_state('a.pt')\n"
      "b = load_cpu('b.pt')\n";
  EXPECT_EQ(testing::found(source, "DC105"), (testing::Lines{}));
}

// OpenMMLab's checkpoint loaders pass their map_location, None by default,
// to torch.load (mmaction2's inflated 3D ResNet reading a 2D checkpoint);
// not when one is given, by keyword or position.
TEST(LintDC105, FindsOpenMMLabsLoadersWithoutMapLocation) {
  const std::string source =
      "from mmengine.runner.checkpoint import _load_checkpoint\n"
      "from mmcv.runner import load_checkpoint\n"
      "a = _load_checkpoint(path)\n"
      "b = _load_checkpoint(path, map_location='cpu')\n"
      "c = _load_checkpoint(path, 'cpu')\n"
      "load_checkpoint(model, path)\n"
      "load_checkpoint(model, path, 'cpu')\n"
      "load_checkpoint(model, path, map_location='cpu')\n";
  EXPECT_EQ(testing::found(source, "DC105"), (testing::Lines{"3 DC105", "6 DC105"}));
}

// A test's expected values: a file the test file records itself with
// torch.save (`if ACCEPT: torch.save(output, f)` / `else: ...`, the path made
// alike: the same path function of the file, `self.x` or module-level name)
// and reads back only to compare: made by the code that makes what it is
// compared with. Read back for another use, or holding a module (torch
// 2.6's default refuses it), it is still found.
TEST(LintDC105, SaysNothingOfExpectedValuesATestRecordsAndCompares) {
  const std::string record_compare =
      "import os\n"
      "import torch\n"
      "ACCEPT = os.getenv('ACCEPT') == '1'\n"
      "def _expected_file(name):\n"
      "    return os.path.join(os.path.dirname(__file__), 'expect', name + '.pkl')\n"
      "def assert_expected(output, name):\n"
      "    expected_file = _expected_file(name)\n"
      "    if ACCEPT:\n"
      "        torch.save(output, expected_file)\n"
      "    else:\n"
      "        expected = torch.load(expected_file)\n"
      "        torch.testing.assert_close(output, expected, check_device=False)\n"
      "def test_model(model, x, dev):\n"
      "    out = model.to(dev)(x.to(dev))\n"
      "    try:\n"
      "        assert_expected(out.cpu(), 'model')\n"
      "    except AssertionError:\n"
      "        expected = torch.load(_expected_file('model'))\n"
      "        torch.testing.assert_close(out.argmax(1), expected[0].argmax(1))\n";
  EXPECT_EQ(found(record_compare, "DC105"), Lines{});
  const std::string golden =
      "import unittest\n"
      "import torch\n"
      "class GoldenTest(unittest.TestCase):\n"
      "    golden = 'golden/out.pt'\n"
      "    def compute(self):\n"
      "        return torch.ones(3, device='cuda').cumsum(0).cpu()\n"
      "    def record(self):\n"
      "        torch.save({'y': self.compute()}, self.golden)\n"
      "    def test_matches(self):\n"
      "        self.assertTrue(torch.allclose(self.compute(), torch.load(self.golden)['y']))\n";
  EXPECT_EQ(found(golden, "DC105"), Lines{});
  const std::string near_misses =
      "import os\n"
      "import unittest\n"
      "import torch\n"
      "def _expected_file(name):\n"
      "    return os.path.join('expect', name + '.pkl')\n"
      "def record(output, name):\n"
      "    torch.save(output, _expected_file(name))\n"
      "def load_expected(name):\n"
      "    return torch.load(_expected_file(name))\n"
      "class ResumeTest(unittest.TestCase):\n"
      "    def setUp(self):\n"
      "        self.model = torch.nn.Linear(2, 2).cuda()\n"
      "    def save(self):\n"
      "        torch.save(self.model, self.path)\n"
      "    def test_resume(self):\n"
      "        m = torch.load(self.path)\n"
      "        self.assertEqual(m.weight, self.model.weight)\n";
  EXPECT_EQ(found(near_misses, "DC105"), (Lines{"9 DC105", "16 DC105"}));
  EXPECT_EQ(only(near_misses.substr(0, near_misses.find("class ResumeTest")), "DC105").message,
            "torch.load without map_location: tensors saved on a GPU fail to load where that "
            "device is missing; pass map_location=\"cpu\" (or the target device) and "
            "weights_only= explicitly (its default changed in torch 2.6)");
}

// A file in a temporary directory or file of the loading process (pytest's
// `tmp_path`/`tmpdir` in a test or fixture, `tempfile`'s, an empty
// `io.BytesIO()`): whatever wrote it (`fabric.save`, a converter, a
// library's `save_pretrained`) ran in this process, on devices it has
// (litgpt's tests and peft's PVeRA example, seed 47). Still found: a
// checkpoint copied, extracted or downloaded into the directory first, a
// whole module torch.save wrote there (torch 2.6's default refuses it), a
// `tmp_path` of a function that is no test, and a path from the arguments.
TEST(LintDC105, SaysNothingOfFilesInTheProcesssOwnTemporaryDirectories) {
  const std::string tests =
      "import os\n"
      "import pytest\n"
      "import torch\n"
      "def test_filter(tmp_path):\n"
      "    fabric = Fabric(devices=1)\n"
      "    save_path = tmp_path / 'model.pth'\n"
      "    fabric.save(save_path, {'model': model}, filter=adapter_filter)\n"
      "    saved = torch.load(save_path)['model']\n"
      "def test_convert(tmp_path, fake_checkpoint_dir):\n"
      "    convert(checkpoint_dir=fake_checkpoint_dir, output_dir=tmp_path / 'converted')\n"
      "    converted = torch.load(tmp_path / 'converted' / 'lit_model.pth')\n"
      "def test_finetune(tmpdir):\n"
      "    run_finetune(out_dir=str(tmpdir))\n"
      "    state = torch.load(os.path.join(str(tmpdir), 'final', f'{NAME}.pth'))\n"
      "@pytest.fixture\n"
      "def checkpoint(tmp_path_factory):\n"
      "    d = tmp_path_factory.mktemp('ckpt')\n"
      "    write_checkpoint(d)\n"
      "    return torch.load(d / 'meta.pt')\n";
  EXPECT_EQ(found(tests, "DC105"), Lines{});
  const std::string script =
      "import io\n"
      "import tempfile\n"
      "import torch\n"
      "with tempfile.TemporaryDirectory() as tmpdir:\n"
      "    model.save_pretrained(tmpdir)\n"
      "    torch.save(probe.state_dict(), tmpdir + '/probe.bin')\n"
      "    probe.load_state_dict(torch.load(tmpdir + '/probe.bin'))\n"
      "class RoundTrip:\n"
      "    def setUp(self):\n"
      "        self.dir = tempfile.mkdtemp()\n"
      "    def check(self, m):\n"
      "        m.export(self.dir)\n"
      "        return torch.load(os.path.join(self.dir, 'weights.pt'))\n"
      "def in_memory(m):\n"
      "    with tempfile.NamedTemporaryFile() as f:\n"
      "        torch.jit.save(torch.jit.script(m), f)\n"
      "        f.seek(0)\n"
      "        torch.load(f)\n"
      "    buffer = io.BytesIO()\n"
      "    write_state(m, buffer)\n"
      "    buffer.seek(0)\n"
      "    return torch.load(buffer)\n";
  EXPECT_EQ(found(script, "DC105"), Lines{});
  const std::string near_misses =
      "import io, os, shutil, tarfile, tempfile\n"
      "import torch\n"
      "def test_resume(tmp_path, trained_dir):\n"
      "    shutil.copytree(trained_dir, tmp_path / 'ckpt')\n"
      "    return torch.load(tmp_path / 'ckpt' / 'model.pt')\n"
      "def from_archive(archive):\n"
      "    with tempfile.TemporaryDirectory() as d:\n"
      "        tarfile.open(archive).extractall(d)\n"
      "        return torch.load(os.path.join(d, 'weights.th'))\n"
      "def test_whole_module(tmp_path):\n"
      "    torch.save(model, tmp_path / 'm.pt')\n"
      "    return torch.load(tmp_path / 'm.pt')\n"
      "def restore(tmp_path):\n"
      "    return torch.load(tmp_path / 'model.pt')\n"
      "def load(args):\n"
      "    data = io.BytesIO(open(args.ckpt, 'rb').read())\n"
      "    return torch.load(data)\n";
  EXPECT_EQ(found(near_misses, "DC105"),
            (Lines{"5 DC105", "9 DC105", "12 DC105", "14 DC105", "17 DC105"}));
  EXPECT_EQ(only(near_misses.substr(0, near_misses.find("def from_archive")), "DC105").message,
            "torch.load without map_location: tensors saved on a GPU fail to load where that "
            "device is missing; pass map_location=\"cpu\" (or the target device) and "
            "weights_only= explicitly (its default changed in torch 2.6)");
}

// A file a save of the same function (or the module's code) wrote before the
// load, in a statement that always runs before it: `fabric.save(path, ...)`,
// `trainer.save_checkpoint(out_dir)` then a load of a file in `out_dir`, a
// state dict torch.save wrote at module level. Still found: a save under an
// `if` that the load is not in (`--do_train` saves, a later `--do_eval` run
// loads), a save in another function (a resume), and a save of another path.
TEST(LintDC105, SaysNothingOfFilesTheSameFunctionSavedBeforeIt) {
  const std::string saved =
      "import os\n"
      "import torch\n"
      "def train_and_check(trainer, args):\n"
      "    trainer.train()\n"
      "    trainer.save_checkpoint(args.output_dir)\n"
      "    opt = torch.load(os.path.join(args.output_dir, 'optimizer.pt'))\n"
      "    with open('log.txt', 'w') as log:\n"
      "        fabric.save(args.ckpt, {'model': model})\n"
      "    for key in torch.load(args.ckpt)['model']:\n"
      "        print(key)\n"
      "model = train()\n"
      "torch.save(model.state_dict(), 'final.pt')\n"
      "model.load_state_dict(torch.load('final.pt'))\n";
  EXPECT_EQ(found(saved, "DC105"), Lines{});
  const std::string near_misses =
      "import os\n"
      "import torch\n"
      "def main(args):\n"
      "    if args.do_train:\n"
      "        trainer.save_model(args.output_dir)\n"
      "    if args.do_eval:\n"
      "        state = torch.load(os.path.join(args.output_dir, 'model.bin'))\n"
      "def save(model, path):\n"
      "    fabric.save(path, {'model': model})\n"
      "def resume(path):\n"
      "    return torch.load(path)\n"
      "def other(args):\n"
      "    fabric.save(args.out, state)\n"
      "    return torch.load(args.resume)\n"
      "if args.train:\n"
      "    torch.save(model.state_dict(), 'final.pt')\n"
      "model.load_state_dict(torch.load('final.pt'))\n";
  EXPECT_EQ(found(near_misses, "DC105"), (Lines{"7 DC105", "11 DC105", "14 DC105", "17 DC105"}));
}

// What a load hands to `load_state_dict` is a state dict, whatever the save
// before it in the same function called it (diffusers' converters: a
// `checkpoint` parameter saved to a temporary file and loaded back into a
// model): torch 2.6's default reads it, and the devices are this process's.
// Still found: the same object loaded back for another use.
TEST(LintDC105, SaysNothingOfAStateDictLoadedBackIntoAModule) {
  const std::string source =
      "import tempfile\n"
      "import torch\n"
      "def load_checkpoint_to_model(checkpoint, model):\n"
      "    with tempfile.NamedTemporaryFile() as file:\n"
      "        torch.save(checkpoint, file.name)\n"
      "        model.load_state_dict(torch.load(file.name), strict=True)\n"
      "def copy_weights(src, dst, buffer):\n"
      "    torch.save(src, buffer)\n"
      "    buffer.seek(0)\n"
      "    dst.load_state_dict(torch.load(buffer))\n"
      "def copy_object(checkpoint):\n"
      "    with tempfile.NamedTemporaryFile() as file:\n"
      "        torch.save(checkpoint, file.name)\n"
      "        return torch.load(file.name)\n";
  EXPECT_EQ(found(source, "DC105"), (Lines{"14 DC105"}));
}

const char kLoadMessage[] =
    "torch.load without map_location: tensors saved on a GPU fail to load where that device is "
    "missing; pass map_location=\"cpu\" (or the target device) and weights_only= explicitly (its "
    "default changed in torch 2.6)";
// Where the load says weights_only= already, only map_location is asked for.
const char kMapLocationMessage[] =
    "torch.load without map_location: tensors saved on a GPU fail to load where that device is "
    "missing; pass map_location=\"cpu\" (or the target device)";

// seed 49: a cache its own class writes (torch.save to the cache directory,
// or to a temporary file moved there) and reads back with weights_only=False
// holds what this machine made. Without weights_only=False, or written by
// another class, it is found.
TEST(LintDC105, SaysNothingOfACacheItsOwnClassWritesAndReads) {
  const std::string moved =
      "import shutil\n"
      "import tempfile\n"
      "from pathlib import Path\n"
      "import torch\n"
      "class Persistent:\n"
      "    def _cachecheck(self, item):\n"
      "        hashfile = self.cache_dir / f'{hash(item)}.pt'\n"
      "        if hashfile.is_file():\n"
      "            return torch.load(hashfile, weights_only=False)\n"
      "        out = self.transform(item)\n"
      "        with tempfile.TemporaryDirectory() as tmp:\n"
      "            temp = Path(tmp) / hashfile.name\n"
      "            torch.save(out, temp)\n"
      "            shutil.move(str(temp), hashfile)\n"
      "        return out\n";
  EXPECT_EQ(found(moved, "DC105"), Lines{});
  const std::string direct =
      "import os\n"
      "import torch\n"
      "class FeatureCache:\n"
      "    def _write(self, key, feats):\n"
      "        torch.save(feats.cuda(), os.path.join(self.root, key + '.pt'))\n"
      "    def _read(self, key):\n"
      "        return torch.load(os.path.join(self.root, key + '.pt'), weights_only=False)\n";
  EXPECT_EQ(found(direct, "DC105"), Lines{});
  const std::string other =
      "import os\n"
      "import torch\n"
      "class Writer:\n"
      "    def write(self, key, feats):\n"
      "        torch.save(feats.cuda(), os.path.join(self.root, key + '.pt'))\n"
      "class Reader:\n"
      "    def read(self, key):\n"
      "        return torch.load(os.path.join(self.root, key + '.pt'), weights_only=False)\n"
      "class Both:\n"
      "    def write(self, key, feats):\n"
      "        torch.save(feats, os.path.join(self.root, key + '.pt'))\n"
      "    def read(self, key):\n"
      "        return torch.load(os.path.join(self.root, key + '.pt'))\n";
  EXPECT_EQ(found(other, "DC105"), (Lines{"8 DC105", "13 DC105"}));
  const std::vector<Finding> all = lint_source(other, "t.py", [] {
    LintOptions o;
    o.select = {"DC105"};
    return o;
  }());
  ASSERT_EQ(all.size(), 2U);
  // weights_only=False is given: only map_location is asked for.
  EXPECT_EQ(all[0].message, kMapLocationMessage);
}

// seed 49: a state dict one function saves and another loads, run one after
// the other by the same caller with the same directory (an integration
// test's `run_training_test(self.data_dir)`, then
// `run_inference_test(self.data_dir)`), comes back in the process that saved
// it. Handed another directory, or a whole model saved, it is found.
TEST(LintDC105, SaysNothingOfAStateDictAnEarlierCallSaved) {
  const std::string tests =
      "import os\n"
      "import torch\n"
      "def run_training_test(root_dir, device='cuda:0'):\n"
      "    model = Net().to(device)\n"
      "    torch.save(model.state_dict(), os.path.join(root_dir, 'best_metric_model.pth'))\n"
      "def run_inference_test(root_dir, device='cuda:0'):\n"
      "    model = Net().to(device)\n"
      "    model_filename = os.path.join(root_dir, 'best_metric_model.pth')\n"
      "    model.load_state_dict(torch.load(model_filename, weights_only=True))\n"
      "class Integration:\n"
      "    def train_and_infer(self):\n"
      "        run_training_test(self.data_dir, device=self.device)\n"
      "        return run_inference_test(self.data_dir, device=self.device)\n";
  EXPECT_EQ(found(tests, "DC105"), Lines{});
  const std::string methods =
      "import torch\n"
      "class Pipeline:\n"
      "    def fit(self, out, epochs):\n"
      "        state = {'w': self.w, 'epochs': epochs}\n"
      "        torch.save(state, f'{out}/weights.pt')\n"
      "    def evaluate(self, out):\n"
      "        return torch.load(f'{out}/weights.pt')['w']\n"
      "    def run(self, out):\n"
      "        self.fit(out, 3)\n"
      "        return self.evaluate(out=out)\n";
  EXPECT_EQ(found(methods, "DC105"), Lines{});
  const std::string other =
      "import os\n"
      "import torch\n"
      "def train(root_dir, model):\n"
      "    torch.save(model.state_dict(), os.path.join(root_dir, 'best.pth'))\n"
      "def infer(root_dir):\n"
      "    return torch.load(os.path.join(root_dir, 'best.pth'))\n"
      "def export(root_dir, model):\n"
      "    torch.save(model, os.path.join(root_dir, 'whole.pth'))\n"
      "def serve(root_dir):\n"
      "    return torch.load(os.path.join(root_dir, 'whole.pth'))\n"
      "def main(args, model):\n"
      "    train(args.out, model)\n"
      "    infer(args.resume)\n"
      "    export(args.out, model)\n"
      "    serve(args.out)\n";
  EXPECT_EQ(found(other, "DC105"), (Lines{"6 DC105", "10 DC105"}));
  const std::vector<Finding> all = lint_source(other, "t.py", [] {
    LintOptions o;
    o.select = {"DC105"};
    return o;
  }());
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[1].message, kLoadMessage);
}

// A helper's load of a path that every call of the helper in the file
// builds in the caller's own temporary directory (composer's resumption
// test: `_assert_checkpoints_equal(os.path.join(folder1, ...))` in `with
// TemporaryDirectory() as tmpdir:`) reads what the process wrote there. Not
// where one call passes another path, or the caller downloads into it.
TEST(LintDC105, SkipsAHelperEveryCallOfWhichGivesItAnOwnTemporaryPath) {
  EXPECT_EQ(found("import os\n"
                  "import torch\n"
                  "from tempfile import TemporaryDirectory\n"
                  "from composer import Trainer\n"
                  "def test_resumption(model):\n"
                  "    with TemporaryDirectory() as tmpdir:\n"
                  "        folder1 = os.path.join(tmpdir, 'folder1')\n"
                  "        Trainer(model=model, save_folder=folder1).fit()\n"
                  "        _assert_checkpoints_equal(\n"
                  "            os.path.join(folder1, 'ckpt-1'),\n"
                  "            os.path.join(folder1, 'ckpt-2'),\n"
                  "        )\n"
                  "def _assert_checkpoints_equal(file1, file2):\n"
                  "    checkpoint1 = torch.load(file1, weights_only=False)\n"
                  "    checkpoint2 = torch.load(file2, weights_only=False)\n"
                  "    assert checkpoint1.keys() == checkpoint2.keys()\n",
                  "DC105"),
            Lines{});
  const std::string helpers =
      "import os\n"
      "import urllib.request\n"
      "import torch\n"
      "def _load(p):\n"
      "    return torch.load(p, weights_only=False)\n"
      "def test_save(tmp_path, model):\n"
      "    torch.save(model, tmp_path / \"m.pt\")\n"
      "    assert _load(tmp_path / \"m.pt\") is not None\n"
      "def test_join(tmpdir, model):\n"
      "    torch.save(model, os.path.join(tmpdir, \"b.pt\"))\n"
      "    assert _load(p=os.path.join(tmpdir, \"b.pt\")) is not None\n"
      "def read(path):\n"
      "    return torch.load(path, weights_only=False)\n"
      "def test_twice(tmp_path):\n"
      "    a = read(tmp_path / \"a.pt\")\n"
      "    b = read(\"/data/published.pt\")\n"
      "def fetch(p):\n"
      "    return torch.load(p, weights_only=False)\n"
      "def test_download(tmp_path):\n"
      "    urllib.request.urlretrieve(\"https://example.com/w.pt\", tmp_path / \"w.pt\")\n"
      "    return fetch(tmp_path / \"w.pt\")\n";
  EXPECT_EQ(found(helpers, "DC105"), (Lines{"13 DC105", "18 DC105"}));
  const std::vector<Finding> all = lint_source(helpers, "t.py", [] {
    LintOptions o;
    o.select = {"DC105"};
    return o;
  }());
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].message, kMapLocationMessage);
}

// A comment or the `/` separator among a helper's parameters is no
// parameter: the load's path is the second argument, not the third (which
// is the process's own temporary file), and the load is found (review).
TEST(LintDC105, CountsParametersNotCommentsWhereAHelperIsGivenAPath) {
  for (const std::string separator : {"  # first\n      ", ", /"}) {
    const std::string source =
        "import os, tempfile, torch\n"
        "def _c(x," +
        separator +
        " path, other):\n"
        "    return torch.load(path)\n"
        "def t():\n"
        "    with tempfile.TemporaryDirectory() as tmp:\n"
        "        p = os.path.join(tmp, 'm.pt')\n"
        "        torch.save({}, p)\n"
        "        _c('/data/a', '/elsewhere/y.pt', p)\n";
    const int load = separator.find('#') != std::string::npos ? 4 : 3;
    EXPECT_EQ(found(source, "DC105"), (Lines{std::to_string(load) + " DC105"})) << separator;
  }
}

// A class that reads back what its own save wrote, where each `self.x` saved
// only ever holds host values (speechbrain's schedulers: `{"losses":
// self.losses, "n_steps": self.n_steps}` of `[]` and `+= 1`; HMMAligner's
// dict of `.cpu()` tensors): the file loads on any host and weights_only
// reads it. An attribute filled from a parameter (a loss that may be a GPU
// tensor), a load that restores nothing the save wrote (a pretrained state
// dict), a class with another save of unknown values, or an attribute that
// only the load fills (whatever file it is given) is still found.
TEST(LintDC105, SaysNothingOfHostStateAClassSavesAndReadsBack) {
  const std::string scheduler =
      "import torch\n"
      "class Noam:\n"
      "    def __init__(self, lr):\n"
      "        self.lr = lr\n"
      "        self.losses = []\n"
      "        self.n_steps = 0\n"
      "    def __call__(self, opt):\n"
      "        self.n_steps += 1\n"
      "    def save(self, path):\n"
      "        data = {'losses': self.losses, 'n_steps': self.n_steps}\n"
      "        torch.save(data, path)\n"
      "    def load(self, path, end_of_epoch=False):\n"
      "        data = torch.load(path)\n"
      "        self.losses = data['losses']\n"
      "        self.n_steps = data['n_steps']\n";
  EXPECT_EQ(found(scheduler, "DC105"), Lines{});
  const std::string aligner =
      "import torch\n"
      "class Aligner(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.align_dict = {}\n"
      "    def store(self, ids, alignments):\n"
      "        for i, id in enumerate(ids):\n"
      "            a = alignments[i]\n"
      "            a = torch.tensor(a, dtype=torch.int16).cpu()\n"
      "            self.align_dict[id] = a\n"
      "    def _save(self, path):\n"
      "        torch.save(self.align_dict, path)\n"
      "    def _load(self, path):\n"
      "        self.align_dict = torch.load(path)\n";
  EXPECT_EQ(found(aligner, "DC105"), Lines{});
  const std::string near =
      "import torch\n"
      "class Plateau:\n"
      "    def __init__(self):\n"
      "        self.losses = []\n"
      "        self.best = 0.0\n"
      "    def step(self, loss):\n"
      "        self.losses.append(loss)\n"
      "    def save(self, path):\n"
      "        torch.save({'losses': self.losses}, path)\n"
      "    def load(self, path):\n"
      "        self.losses = torch.load(path)['losses']\n"
      "class Pretrained:\n"
      "    def __init__(self):\n"
      "        self.step = 0\n"
      "    def save(self, path):\n"
      "        torch.save({'step': self.step}, path)\n"
      "    def load(self, path):\n"
      "        self.net.load_state_dict(torch.load(path))\n"
      "class Both:\n"
      "    def __init__(self, net):\n"
      "        self.step = 0\n"
      "        self.net = net\n"
      "    def save(self, path):\n"
      "        torch.save({'step': self.step}, path)\n"
      "        torch.save(self.net.state_dict(), path + '.net')\n"
      "    def load(self, path):\n"
      "        self.step = torch.load(path)['step']\n"
      "class Unpacked:\n"
      "    def __init__(self, pair):\n"
      "        self.a, self.b = pair\n"
      "    def save(self, path):\n"
      "        torch.save({'a': self.a}, path)\n"
      "    def load(self, path):\n"
      "        self.a = torch.load(path)['a']\n"
      "class Holder:\n"
      "    def save(self, path):\n"
      "        torch.save(self.weights, path)\n"
      "    def load(self, path):\n"
      "        self.weights = torch.load(path)\n";
  EXPECT_EQ(found(near, "DC105"),
            (Lines{"11 DC105", "18 DC105", "27 DC105", "34 DC105", "39 DC105"}));
  EXPECT_NE(only("import torch\n"
                 "class P:\n"
                 "    def step(self, loss):\n"
                 "        self.losses = [loss]\n"
                 "    def save(self, path):\n"
                 "        torch.save(self.losses, path)\n"
                 "    def load(self, path):\n"
                 "        self.losses = torch.load(path)\n",
                 "DC105")
                .message.find("map_location=\"cpu\""),
            std::string::npos);
}

// A file a function of the file writes when the loading function hands it
// the path (open_clip's util_test: `create_random_text_data(input_file_text,
// ...)`, then `torch.load(input_file_text, weights_only=True)`), in a file
// that puts nothing on a device: what the function made itself stays on the
// host. Still found: a function saving what it is handed (a model), the same
// code in a file that moves tensors to a device, a path handed to no saver.
TEST(LintDC105, SaysNothingOfAFileACalledFunctionWritesOnTheHost) {
  const std::string text_data =
      "import os, random, torch\n"
      "def random_text_batch(batch_size):\n"
      "    return [''.join(random.choices('abc', k=5)) for _ in range(batch_size)]\n"
      "def create_random_text_data(path, batches=1, batch_size=1):\n"
      "    text_batches = [random_text_batch(batch_size) for _ in range(batches)]\n"
      "    torch.save(text_batches, path)\n"
      "def create_test_data(input_dir, create_missing=True):\n"
      "    input_file_text = os.path.join(input_dir, 'random_text.pt')\n"
      "    if create_missing and not os.path.exists(input_file_text):\n"
      "        create_random_text_data(input_file_text, batches=2)\n"
      "    return torch.load(input_file_text, weights_only=True)\n";
  EXPECT_EQ(found(text_data, "DC105"), Lines{});
  const std::string by_keyword =
      "import torch\n"
      "def write_table(n, out=None):\n"
      "    table = {'counts': list(range(n))}\n"
      "    torch.save(table, out)\n"
      "def main(root):\n"
      "    table_file = root + '/table.pt'\n"
      "    write_table(8, out=table_file)\n"
      "    return torch.load(table_file)\n";
  EXPECT_EQ(found(by_keyword, "DC105"), Lines{});
  const std::string near =
      "import os, torch\n"
      "def dump_model(model, path):\n"
      "    torch.save(model, path)\n"
      "def make(path):\n"
      "    torch.save({'step': 1}, path)\n"
      "def check(model, root):\n"
      "    weights = os.path.join(root, 'model.pt')\n"
      "    dump_model(model, weights)\n"
      "    a = torch.load(weights)\n"
      "    b = torch.load(os.path.join(root, 'other.pt'))\n"
      "    name = root + '/n.pt'\n"
      "    make(root)\n"
      "    return a, b, torch.load(name)\n";
  EXPECT_EQ(found(near, "DC105"), (Lines{"9 DC105", "10 DC105", "13 DC105"}));
  const std::string on_device = by_keyword + "def run(m):\n    return m.to('cuda')\n";
  EXPECT_EQ(found(on_device, "DC105"), (Lines{"8 DC105"}));
  EXPECT_NE(only(on_device, "DC105").message.find("weights_only="), std::string::npos);
}

}  // namespace
// DC105's findings of `source`, with their messages.
std::vector<Finding> dc105_findings(const std::string& source) {
  LintOptions o;
  o.select = {"DC105"};
  return lint_source(source, "t.py", o);
}

// Where weights_only= is given, the message asks for map_location alone.
TEST(LintDC105, AsksOnlyForMapLocationWhereWeightsOnlyIsGiven) {
  const std::string source =
      "import torch\n"
      "def restore(path):\n"
      "    return torch.load(path, weights_only=True)\n"
      "def resume(args):\n"
      "    return torch.load(args.resume)\n";
  const std::vector<Finding> all = dc105_findings(source);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].message, kMapLocationMessage);
  EXPECT_EQ(all[1].message, kLoadMessage);
}

// seed 55: a file every torch.save of the file writing that path fills with
// host values (DeepSpeed's baseline_mp2 fixture: `torch.save(baseline.cpu(),
// os.path.join(class_tmpdir, "output.pt"))`, read back with weights_only=
// given): nothing to map. Still found: one save to that path of a tensor not
// moved to the host, a load without weights_only= (a whole object may be
// refused), and a path that names no file (a directory alone).
TEST(LintDC105, SaysNothingOfAFileEveryWriterOfWhichSavesHostValues) {
  const std::string fixture =
      "import os, torch\n"
      "class baseline_mp2(DistributedFixture):\n"
      "    def run(self, inputs, class_tmpdir):\n"
      "        baseline = model(inputs[0].to(device_name))\n"
      "        save_path = os.path.join(class_tmpdir, 'output.pt')\n"
      "        torch.save(baseline.cpu(), save_path)\n"
      "class TestResize:\n"
      "    def test(self, baseline_mp2, inputs, class_tmpdir):\n"
      "        load_path = os.path.join(class_tmpdir, 'output.pt')\n"
      "        baseline = torch.load(load_path, weights_only=False)\n"
      "        test = model(inputs[0].to(device_name))\n"
      "        assert torch.allclose(baseline, test.cpu())\n";
  EXPECT_EQ(found(fixture, "DC105"), Lines{});
  const std::string script =
      "import os, torch\n"
      "def export(out, emb, step):\n"
      "    torch.save({'emb': emb.detach().cpu(), 'step': step.item(), 'tag': 'v1'},\n"
      "               os.path.join(out, 'embeddings.pt'))\n"
      "def restore(out):\n"
      "    return torch.load(os.path.join(out, 'embeddings.pt'), weights_only=True)\n";
  EXPECT_EQ(found(script, "DC105"), Lines{});
  const std::string misses =
      "import os, torch\n"
      "def export(out, emb, model):\n"
      "    torch.save(emb.cpu(), os.path.join(out, 'emb.pt'))\n"
      "    torch.save(model.state_dict(), os.path.join(out, 'model.pt'))\n"
      "    torch.save(emb.cpu(), os.path.join(out, 'also.pt'))\n"
      "    torch.save(emb, os.path.join(out, 'also.pt'))\n"
      "    torch.save(emb.cpu(), out)\n"
      "def restore(out):\n"
      "    a = torch.load(os.path.join(out, 'emb.pt'))\n"
      "    b = torch.load(os.path.join(out, 'model.pt'), weights_only=True)\n"
      "    c = torch.load(os.path.join(out, 'also.pt'), weights_only=True)\n"
      "    d = torch.load(out, weights_only=True)\n";
  EXPECT_EQ(found(misses, "DC105"), (Lines{"9 DC105", "10 DC105", "11 DC105", "12 DC105"}));
  const std::vector<Finding> all = dc105_findings(misses);
  ASSERT_EQ(all.size(), 4U);
  EXPECT_EQ(all[0].message, kLoadMessage);
  EXPECT_EQ(all[1].message, kMapLocationMessage);
}

// seed 55: a load its function declares a numpy array (LIBERO's init states:
// `def get_task_init_states(...) -> np.ndarray: return torch.load(path,
// weights_only=False)`), returned as it is or through a name: no tensors to
// map. Still found: a load without weights_only= (torch 2.6's default
// refuses a numpy pickle), a function declaring a tensor, and a name the
// function uses otherwise than returning it.
TEST(LintDC105, SaysNothingOfALoadItsFunctionDeclaresANumpyArray) {
  const std::string libero =
      "import numpy as np\n"
      "import torch\n"
      "def get_task_init_states(task_suite, i, plus=False) -> np.ndarray:\n"
      "    path = root / task_suite.tasks[i].init_states_file\n"
      "    if not plus:\n"
      "        return torch.load(path, weights_only=False)\n"
      "    init_states = torch.load(path, weights_only=False)\n"
      "    return init_states.reshape(1, -1)\n";
  EXPECT_EQ(found(libero, "DC105"), Lines{});
  const std::string other =
      "import numpy\n"
      "from torch import load\n"
      "class Replay:\n"
      "    def states(self, f) -> numpy.ndarray:\n"
      "        s = load(f, weights_only=False)\n"
      "        return s\n";
  EXPECT_EQ(found(other, "DC105"), Lines{});
  const std::string misses =
      "import numpy as np\n"
      "import torch\n"
      "def a(path) -> np.ndarray:\n"
      "    return torch.load(path)\n"
      "def b(path) -> torch.Tensor:\n"
      "    return torch.load(path, weights_only=True)\n"
      "def c(path) -> np.ndarray:\n"
      "    s = torch.load(path, weights_only=False)\n"
      "    keep(s)\n"
      "    return s\n"
      "def d(path):\n"
      "    return torch.load(path, weights_only=False)\n";
  EXPECT_EQ(found(misses, "DC105"), (Lines{"4 DC105", "6 DC105", "8 DC105", "12 DC105"}));
  EXPECT_EQ(only(misses.substr(0, misses.find("def b")), "DC105").message, kLoadMessage);
}

}  // namespace devcheck::lint
