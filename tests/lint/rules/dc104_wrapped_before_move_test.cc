#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC104, FindsDdpBuiltBeforeTheModelMoves) {
  const std::string bad =
      "from torch.nn.parallel import DistributedDataParallel as DDP\n"
      "def main(model, device):\n"
      "    ddp = DDP(model)\n"
      "    ddp.to(device)\n";
  EXPECT_EQ(found(bad, "DC104"), (Lines{"3 DC104"}));
  EXPECT_NE(only(bad, "DC104").message.find("moved only after, line 4"), std::string::npos);
  EXPECT_EQ(found("from torch.nn.parallel import DistributedDataParallel as DDP\n"
                  "def main(model, device):\n"
                  "    model.to(device)\n"
                  "    ddp = DDP(model, device_ids=[0])\n"
                  "def cpu(model):\n"
                  "    return DDP(model)\n",
                  "DC104"),
            Lines{});
}

// With device_ids, DDP refuses a model on the CPU: one made here and never
// moved is found; one moved before (or where it cannot be told) is not.
TEST(LintDC104, FindsDeviceIdsForAModelNeverMoved) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "def main(gpu):\n"
      "    torch.cuda.set_device(gpu)\n"
      "    model = nn.Linear(4, 4)\n"
      "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])\n"
      "def fixed(gpu):\n"
      "    model = nn.Linear(4, 4)\n"
      "    model.cuda(gpu)\n"
      "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])\n"
      "def given(model, gpu):\n"
      "    return torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])\n";
  EXPECT_EQ(found(source, "DC104"), (Lines{"6 DC104"}));
  EXPECT_NE(only(source, "DC104").message.find("made on the CPU (line 5)"), std::string::npos);
}

// DataParallel needs the model on device_ids[0]; a bare .cuda() after the
// wrap puts it on the current device. Not with ids from 0 or set_device.
TEST(LintDC104, FindsDataParallelWithDeviceIdsMovedByABareCuda) {
  const std::string bad =
      "import torch\n"
      "def build(model, args):\n"
      "    return torch.nn.DataParallel(model, device_ids=args.gpus).cuda()\n";
  EXPECT_EQ(found(bad, "DC104"), (Lines{"3 DC104"}));
  EXPECT_NE(only(bad, "DC104").message.find("needs it on device_ids[0]"), std::string::npos);
  EXPECT_EQ(found("import torch\n"
                  "def build(model, args):\n"
                  "    a = torch.nn.DataParallel(model).cuda()\n"
                  "    b = torch.nn.DataParallel(model, device_ids=[0, 1]).cuda()\n"
                  "    c = torch.nn.DataParallel(model.cuda(args.gpus[0]), device_ids=args.gpus)\n"
                  "    d = torch.nn.DataParallel(model, device_ids=args.gpus).cuda(args.gpus[0])\n"
                  "    return a, b, c, d\n",
                  "DC104"),
            Lines{});
  EXPECT_EQ(found("import torch\n"
                  "def build(model, args):\n"
                  "    torch.cuda.set_device(args.gpus[0])\n"
                  "    return torch.nn.DataParallel(model, device_ids=args.gpus).cuda()\n",
                  "DC104"),
            Lines{});
}

// A torchvision model built in the file (by its builder, or by name from
// models.__dict__) and never moved is a model on the CPU.
TEST(LintDC104, FindsATorchvisionModelNeverMovedWrappedWithDeviceIds) {
  EXPECT_EQ(
      found("import torch\n"
            "import torchvision.models as models\n"
            "def worker(args):\n"
            "    model = models.__dict__[args.arch]()\n"
            "    a = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])\n"
            "    net = models.resnet50()\n"
            "    net.cuda(args.gpu)\n"
            "    b = torch.nn.parallel.DistributedDataParallel(net, device_ids=[args.gpu])\n",
            "DC104"),
      (Lines{"5 DC104"}));
}

TEST(LintDC104, FindsDataParallelOfAModelLeftOnTheCpu) {
  const std::string bad =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "def predict(path, x):\n"
      "    model = Net()\n"
      "    model = torch.nn.DataParallel(model)\n"
      "    model.load_state_dict(torch.load(path, map_location='cpu'))\n"
      "    return model(x)\n";
  EXPECT_EQ(found(bad, "DC104"), (Lines{"9 DC104"}));
  EXPECT_NE(
      only(bad, "DC104").message.find("DataParallel(model) of a model made on the CPU (line 8)"),
      std::string::npos);
}

TEST(LintDC104, IsSilentOnDataParallelOfAModelMovedBeforeOrAfter) {
  const std::string head =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "def main(device):\n"
      "    model = Net()\n";
  EXPECT_EQ(found(head + "    model = nn.DataParallel(model).cuda()\n", "DC104"), Lines{});
  EXPECT_EQ(found(head + "    model = nn.DataParallel(model)\n    model.to(device)\n", "DC104"),
            Lines{});
  EXPECT_EQ(found(head + "    model.to(device)\n    model = nn.DataParallel(model)\n", "DC104"),
            Lines{});
  EXPECT_EQ(found(head + "    dp = nn.DataParallel(model)\n    model.cuda()\n", "DC104"), Lines{});
  // A model from elsewhere: where it is, the flow does not know.
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "def wrap(model):\n"
                  "    return nn.DataParallel(model)\n",
                  "DC104"),
            Lines{});
}

// Wrapped only under a test of CUDA, the model is on the GPU when it is
// wrapped (fangchangma/self-supervised-depth-completion#42's fix).
TEST(LintDC104, SaysNothingOfAWrapUnderATestOfCuda) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "cuda = torch.cuda.is_available() and not args.cpu\n"
      "device = torch.device('cuda' if cuda else 'cpu')\n"
      "def main():\n"
      "    model = nn.Linear(3, 3)\n"
      "    if cuda:\n"
      "        model = nn.DataParallel(model)\n"
      "    other = nn.Linear(3, 3)\n"
      "    other = nn.DataParallel(other) if use_gpu else other\n"
      "    third = nn.Linear(3, 3)\n"
      "    third = nn.DataParallel(third)\n";
  EXPECT_EQ(testing::found(source, "DC104"), (testing::Lines{"12 DC104"}));
}

// `DDP(model).cuda()` moves the wrapper as it is made, after DDP took the
// CPU parameters; so does a wrapper of DDP under another name
// (`MMDistributedDataParallel`, a subclass). Not a model moved first, nor a
// wrapper whose name does not say DistributedDataParallel.
TEST(LintDC104, FindsAWrapperMovedAsItIsMadeUnderAnyDdpName) {
  const std::string chained =
      "import torch\n"
      "from torch.nn.parallel import DistributedDataParallel as DDP\n"
      "def main(model):\n"
      "    model = DDP(model).cuda()\n"
      "    return model\n";
  EXPECT_EQ(found(chained, "DC104"), (Lines{"4 DC104"}));
  const std::string other_name =
      "from mmcv.parallel import MMDistributedDataParallel\n"
      "from mmdet.models import build_detector\n"
      "def main(cfg, device):\n"
      "    model = build_detector(cfg.model)\n"
      "    model = MMDistributedDataParallel(model).to(device)\n"
      "    ddp = MMDistributedDataParallel(model)\n"
      "    ddp.cuda()\n";
  EXPECT_EQ(found(other_name, "DC104"), (Lines{"5 DC104", "6 DC104"}));
  EXPECT_NE(only(chained, "DC104").message.find("DDP(model.to(device)"), std::string::npos);
  const std::string moved_first =
      "from mmcv.parallel import MMDistributedDataParallel, MMDataParallel\n"
      "from torch.nn.parallel import DistributedDataParallel as DDP\n"
      "from fairscale.nn import ShardedDataParallel\n"
      "def main(model, device):\n"
      "    a = MMDistributedDataParallel(model.cuda())\n"
      "    b = DDP(model.to(device)).to(device)\n"
      "    c = ShardedDataParallel(model).cuda()\n"
      "    d = MMDataParallel(model, device_ids=[0]).cuda()\n"
      "    e = DDP(model).to('cpu')\n";
  EXPECT_EQ(found(moved_first, "DC104"), (Lines{}));
}

// A module of a class of the file that only holds the modules it is given
// (timm's distillation task: `Trainable(student_model, projection)`, the
// student a parameter) is where those are, which the file does not tell:
// DDP with device_ids says nothing. Built from layers made in the file, or
// holding a layer of its own, it is on the CPU and still found.
TEST(LintDC104, SaysNothingOfAWrapperHoldingModulesHandedIn) {
  const std::string head =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.nn.parallel import DistributedDataParallel as DDP\n"
      "from .task import TrainingTask\n"
      "class Pair(nn.Module):\n"
      "    def __init__(self, student, projection=None):\n"
      "        super().__init__()\n"
      "        self.student = student\n"
      "        self.projection = projection\n"
      "        self.frozen = False\n"
      "    def forward(self, x):\n"
      "        return self.projection(self.student(x))\n";
  const std::string task =
      "class Task(TrainingTask):\n"
      "    def __init__(self, student_model, dim, device):\n"
      "        super().__init__()\n"
      "        projection = nn.Linear(dim, dim, device=device)\n"
      "        self.trainable = Pair(student_model, projection)\n"
      "    def prepare_distributed(self, device_ids=None):\n"
      "        self.trainable = DDP(self.trainable, device_ids=device_ids)\n"
      "        return self\n";
  EXPECT_EQ(found(head + task, "DC104"), Lines{});
  const std::string function =
      "def wrap(encoder, gpu):\n"
      "    model = Pair(encoder)\n"
      "    return DDP(model, device_ids=[gpu])\n";
  EXPECT_EQ(found(head + function, "DC104"), Lines{});
  const std::string near_misses =
      "class WithHead(nn.Module):\n"
      "    def __init__(self, body):\n"
      "        super().__init__()\n"
      "        self.body = body\n"
      "        self.head = nn.Linear(4, 2)\n"
      "def made_here(gpu):\n"
      "    enc = nn.Linear(4, 4)\n"
      "    a = DDP(Pair(enc), device_ids=[gpu])\n"
      "    b = DDP(Pair(nn.Linear(4, 4)), device_ids=[gpu])\n"
      "    return a, b\n"
      "def own_layer(encoder, gpu):\n"
      "    model = WithHead(encoder)\n"
      "    return DDP(model, device_ids=[gpu])\n";
  EXPECT_EQ(found(head + near_misses, "DC104"), (Lines{"20 DC104", "21 DC104", "25 DC104"}));
  const std::vector<Finding> all = lint_source(head + near_misses, "t.py", [] {
    LintOptions o;
    o.select = {"DC104"};
    return o;
  }());
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[2].message,
            "DistributedDataParallel(model, device_ids=...) of a model made on the CPU (line 24) "
            "and never moved to its GPU: DDP refuses it; move it first: model.to(device)");
}

// seed 49: a wrapper that is only data (an item of a test's cases, or handed
// straight to a save) never runs its forward, so no device check fails. Bound
// to a name and called, it is found.
TEST(LintDC104, IsSilentOnDataParallelKeptAsDataOrOnlySaved) {
  const std::string cases =
      "import torch\n"
      "CASE_4 = [torch.nn.DataParallel(torch.nn.PReLU()), ['weight']]\n"
      "CASE_5 = [{'net': torch.nn.DataParallel(torch.nn.PReLU())}, ['net']]\n";
  EXPECT_EQ(found(cases, "DC104"), Lines{});
  const std::string saved =
      "import torch\n"
      "import torch.nn as nn\n"
      "def export(path):\n"
      "    torch.save(nn.DataParallel(nn.Linear(4, 4)).state_dict(), path)\n"
      "    save_state(src=nn.DataParallel(nn.Linear(4, 4)), path=path)\n";
  EXPECT_EQ(found(saved, "DC104"), Lines{});
  const std::string called =
      "import torch\n"
      "import torch.nn as nn\n"
      "def run(x):\n"
      "    net = nn.DataParallel(nn.PReLU())\n"
      "    save_state(net, 'p.pt')\n"
      "    return net(x)\n";
  EXPECT_EQ(found(called, "DC104"), (Lines{"4 DC104"}));
  EXPECT_EQ(only(called, "DC104").message,
            "DataParallel(nn.PReLU()) of a model made on the CPU (line 4) and never moved: with a "
            "GPU visible, its forward fails (\"module must have its parameters and buffers on "
            "device cuda:0\"); move it first: DataParallel(nn.PReLU().to(device)), or leave it "
            "unwrapped on the CPU");
}

}  // namespace
}  // namespace devcheck::lint
