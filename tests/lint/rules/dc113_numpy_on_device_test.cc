#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::expect_bugs_found_and_twins_clean;
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC113, FindsNumpyOnADeviceTensor) {
  const std::string source =
      "import torch\n"
      "def f(x, device):\n"
      "    y = x.to(device)\n"
      "    a = y.numpy()\n"
      "    b = y.detach().cpu().numpy()\n"
      "    c = x.cuda().detach().numpy()\n"
      "    d = x.numpy()\n"
      "    e = x.to(torch.float32).numpy()\n";
  EXPECT_EQ(found(source, "DC113"), (Lines{"4 DC113", "6 DC113"}));
  EXPECT_NE(only("def f(x):\n    return x.cuda().numpy()\n", "DC113")
                .message.find(".detach().cpu().numpy()"),
            std::string::npos);
}

// A module's output is where the module is (moved anywhere in the file); a
// copy to "cpu" is on the host.
TEST(LintDC113, FindsAModulesOutputAndNotACopyToTheCpu) {
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = Net()\n"
      "model.to(device)\n"
      "def predict(x):\n"
      "    out = model(x.to(device))\n"
      "    return out.softmax(-1).detach().numpy()\n"
      "def host(x):\n"
      "    return x.to('cpu').numpy(), model(x).cpu().numpy()\n"
      "def collected(loader):\n"
      "    outs = []\n"
      "    for x, y in loader:\n"
      "        outs.append(model(x.to(device)))\n"
      "    return np.concatenate(outs)\n";
  EXPECT_EQ(found("import numpy as np\n" + source, "DC113"), (Lines{"8 DC113", "15 DC113"}));
}

TEST(LintDC113, FindsNumpyInAMethodOfAModuleTheClassKeepsOnADevice) {
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "class Head(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.fc = nn.Linear(4, 2)\n"
                  "    def forward(self, x):\n"
                  "        return self.fc(x)\n"
                  "    def decode(self, out):\n"
                  "        return out.data.numpy()\n"
                  "class Pipeline:\n"
                  "    def __init__(self, device):\n"
                  "        self.head = Head()\n"
                  "        self.head.to(device)\n"
                  "    def predict(self, x):\n"
                  "        return self.head.decode(self.head(x))\n",
                  "DC113"),
            (Lines{"9 DC113"}));
}

// NumPy given what is on a module's device, in a file that moves its
// modules to a device (issue 38, the DHCN case: np.sum of the layers'
// embeddings); silent where the file never moves a module.
TEST(LintDC113, FindsNumpyOfTheModulesDeviceValuesInAFileThatMovesModules) {
  const std::string module =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class HyperConv(nn.Module):\n"
      "    def forward(self, adjacency, embedding):\n"
      "        final = [embedding]\n"
      "        final.append(torch.sparse.mm(adjacency, embedding))\n"
      "        return np.sum(final, 0)\n";
  EXPECT_EQ(
      found(module + "def train(adjacency, device):\n"
                     "    model = HyperConv().to(device)\n"
                     "    return model(adjacency.to(device), torch.rand(3, 3, device=device))\n",
            "DC113"),
      (Lines{"8 DC113"}));
  EXPECT_NE(
      only(module + "def train(adjacency, device):\n"
                    "    return HyperConv().cuda()(adjacency.cuda(), adjacency.cuda())\n",
           "DC113")
          .message.find("on the module's device raises a TypeError once the module is on a "
                        "device (this file moves its modules to one, or hands them to a framework "
                        "that does)"),
      std::string::npos);
  EXPECT_EQ(found(module, "DC113"), Lines{});
}

// A moved model's state_dict() holds tensors on the device, here and in a
// helper it is handed to (issue 38, the fastllm exporter); not a model left
// on the CPU.
TEST(LintDC113, FindsNumpyOfAMovedModelsStateDict) {
  const std::string source =
      "import torch\n"
      "def tofile(model):\n"
      "    state = model.state_dict()\n"
      "    for key in state:\n"
      "        cur = state[key].numpy()\n"
      "def main(model, other):\n"
      "    model = model.cuda().eval()\n"
      "    tofile(model)\n"
      "    a = model.state_dict()['w'].numpy()\n"
      "    b = other.state_dict()['w'].numpy()\n"
      "    c = model.state_dict()['w'].cpu().numpy()\n";
  EXPECT_EQ(found(source, "DC113"), (Lines{"5 DC113", "9 DC113"}));
}

// The bug as users write it in other shapes (issue 38's seventh round:
// variants of the tuning cases' bugs that the rules missed, with their
// fixed twins): scikit-learn's metrics, pyplot and pandas given device
// tensors, outputs kept in a dict, in lists made together or in a list a
// class fills, a model output's fields.
TEST(LintDC113, FindsNumPyOfDeviceValuesInTheShapesUsersWriteThem) {
  const std::string net =
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "import numpy as np\n"
      "from torch.utils.data import DataLoader\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 2)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n";
  const std::vector<std::pair<std::string, std::string>> variants = {
      // dict outputs numpy
      {"def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    results = {}\n"
       "    for x, y in DataLoader(ds):\n"
       "        results[\"pred\"] = model(x.to(device))\n"
       "    arr = results[\"pred\"].detach().numpy()\n",
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    results = {}\n"
       "    for x, y in DataLoader(ds):\n"
       "        results[\"pred\"] = model(x.to(device))\n"
       "    arr = results[\"pred\"].detach().cpu().numpy()\n"},
      // matplotlib plot
      {"import matplotlib.pyplot as plt\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    x = torch.randn(10, 4, device=device)\n"
       "    out = model(x)\n"
       "    plt.plot(out.detach())\n",
       "import matplotlib.pyplot as plt\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    x = torch.randn(10, 4, device=device)\n"
       "    out = model(x)\n"
       "    plt.plot(out.detach().cpu())\n"},
      // pandas dataframe
      {"import pandas as pd\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    x = torch.randn(10, 4, device=device)\n"
       "    out = model(x).detach()\n"
       "    df = pd.DataFrame(out)\n",
       "import pandas as pd\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    x = torch.randn(10, 4, device=device)\n"
       "    out = model(x).detach()\n"
       "    df = pd.DataFrame(out.cpu())\n"},
      // sklearn accuracy
      {"from sklearn.metrics import accuracy_score\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        pred = model(x.to(device)).argmax(1)\n"
       "        acc = accuracy_score(y, pred)\n",
       "from sklearn.metrics import accuracy_score\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        pred = model(x.to(device)).argmax(1)\n"
       "        acc = accuracy_score(y, pred.cpu())\n"},
      // sklearn module metrics
      {"from sklearn import metrics\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        y = y.to(device)\n"
       "        pred = model(x.to(device)).argmax(1)\n"
       "        f1 = metrics.f1_score(y, pred)\n",
       "from sklearn import metrics\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        y = y.to(device)\n"
       "        pred = model(x.to(device)).argmax(1)\n"
       "        f1 = metrics.f1_score(y.cpu(), pred.cpu())\n"},
      // roc auc scores
      {"from sklearn.metrics import roc_auc_score\n"
       "def evaluate(model, loader, device):\n"
       "    ys, ps = [], []\n"
       "    for x, y in loader:\n"
       "        ps.append(torch.sigmoid(model(x.to(device))))\n"
       "        ys.append(y)\n"
       "    return roc_auc_score(torch.cat(ys), torch.cat(ps))\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    evaluate(Net().to(device), DataLoader(ds), device)\n",
       "from sklearn.metrics import roc_auc_score\n"
       "def evaluate(model, loader, device):\n"
       "    ys, ps = [], []\n"
       "    for x, y in loader:\n"
       "        ps.append(torch.sigmoid(model(x.to(device))).cpu())\n"
       "        ys.append(y)\n"
       "    return roc_auc_score(torch.cat(ys), torch.cat(ps))\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    evaluate(Net().to(device), DataLoader(ds), device)\n"},
      // confusion matrix preds
      {"from sklearn.metrics import confusion_matrix\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        preds = model(x.to(device)).argmax(1)\n"
       "        cm = confusion_matrix(y, preds)\n",
       "from sklearn.metrics import confusion_matrix\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        preds = model(x.to(device)).argmax(1)\n"
       "        cm = confusion_matrix(y, preds.cpu())\n"},
      // hf logits numpy
      {"from transformers import AutoModelForSequenceClassification\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = "
       "AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\").to(device)\n"
       "    for batch in DataLoader(ds):\n"
       "        batch = {k: v.to(device) for k, v in batch.items()}\n"
       "        outputs = model(**batch)\n"
       "        logits = outputs.logits.detach().numpy()\n",
       "from transformers import AutoModelForSequenceClassification\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = "
       "AutoModelForSequenceClassification.from_pretrained(\"bert-base-uncased\").to(device)\n"
       "    for batch in DataLoader(ds):\n"
       "        batch = {k: v.to(device) for k, v in batch.items()}\n"
       "        outputs = model(**batch)\n"
       "        logits = outputs.logits.detach().cpu().numpy()\n"},
      // loss history np plot
      {"import matplotlib.pyplot as plt\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    history = []\n"
       "    for x, y in DataLoader(ds):\n"
       "        loss = F.mse_loss(model(x.to(device)), y.to(device))\n"
       "        history.append(loss)\n"
       "    plt.plot(history)\n",
       "import matplotlib.pyplot as plt\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    history = []\n"
       "    for x, y in DataLoader(ds):\n"
       "        loss = F.mse_loss(model(x.to(device)), y.to(device))\n"
       "        history.append(loss.item())\n"
       "    plt.plot(history)\n"},
      // metrics class update
      {"class Meter:\n"
       "    def __init__(self):\n"
       "        self.vals = []\n"
       "    def update(self, v):\n"
       "        self.vals.append(v)\n"
       "    def mean(self):\n"
       "        return np.mean(self.vals)\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    m = Meter()\n"
       "    for x, y in DataLoader(ds):\n"
       "        loss = F.mse_loss(model(x.to(device)), y.to(device))\n"
       "        m.update(loss)\n"
       "    print(m.mean())\n",
       "class Meter:\n"
       "    def __init__(self):\n"
       "        self.vals = []\n"
       "    def update(self, v):\n"
       "        self.vals.append(v)\n"
       "    def mean(self):\n"
       "        return np.mean(self.vals)\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    m = Meter()\n"
       "    for x, y in DataLoader(ds):\n"
       "        loss = F.mse_loss(model(x.to(device)), y.to(device))\n"
       "        m.update(loss.item())\n"
       "    print(m.mean())\n"},
      // conditional expression guard
      {"def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    t = model(torch.randn(2, 4, device=device)).detach()\n"
       "    arr = t.numpy()\n",
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    t = model(torch.randn(2, 4, device=device)).detach()\n"
       "    arr = t.numpy() if t.device.type == \"cpu\" else t.cpu().numpy()\n"},
  };
  expect_bugs_found_and_twins_clean(net, variants, "DC113");
}

// NumPy of a device tensor in a branch chosen by where it is (`t.numpy() if
// t.device.type == "cpu" else t.cpu().numpy()`) follows that choice.
TEST(LintDC113, SaysNothingUnderATestOfWhereTheTensorIs) {
  const std::string head =
      "import torch\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "t = model(torch.randn(2, 2).cuda()).detach()\n";
  EXPECT_EQ(found(head + "a = t.numpy() if t.device.type == 'cpu' else t.cpu().numpy()\n", "DC113"),
            Lines{});
  EXPECT_EQ(found(head + "if not t.is_cuda:\n    a = t.numpy()\n", "DC113"), Lines{});
  EXPECT_EQ(found(head + "if t.numel() > 1:\n    a = t.numpy()\n", "DC113"), (Lines{"5 DC113"}));
}

// Lightning moves a LightningModule to the Trainer's device: NumPy of what
// its steps compute (in the step, in the epoch's end from the outputs the
// steps returned, or from a list a step fills) fails there. Not after
// `.cpu()`, and not in a plain module that nothing moves.
TEST(LintDC113, FindsNumPyOfWhatALightningModulesStepsCompute) {
  const std::string head =
      "import pytorch_lightning as pl\n"
      "import torch\n"
      "class Model(pl.LightningModule):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.layer = torch.nn.Linear(8, 3)\n"
      "        self.outs = []\n";
  EXPECT_EQ(found(head + "    def validation_step(self, batch, batch_idx):\n"
                         "        x, y = batch\n"
                         "        return {'preds': self.layer(x).argmax(-1), 'y': y}\n"
                         "    def validation_epoch_end(self, outputs):\n"
                         "        preds = torch.cat([o['preds'] for o in outputs]).numpy()\n"
                         "        ys = torch.cat([o['y'] for o in outputs]).cpu().numpy()\n",
                  "DC113"),
            (Lines{"12 DC113"}));
  EXPECT_EQ(found(head + "    def test_step(self, batch, batch_idx):\n"
                         "        self.outs.append(self.layer(batch[0]).argmax(-1))\n"
                         "        return self.layer(batch[0]).detach().numpy()\n"
                         "    def on_test_epoch_end(self):\n"
                         "        return torch.cat(self.outs).numpy()\n",
                  "DC113"),
            (Lines{"10 DC113", "12 DC113"}));
  EXPECT_EQ(found("import torch\n"
                  "class Plain(torch.nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.layer = torch.nn.Linear(8, 3)\n"
                  "    def forward(self, x):\n"
                  "        return self.layer(x).detach().numpy()\n",
                  "DC113"),
            Lines{});
}

// A diffusers pipeline gives what output_type= asks for: PIL images (its
// default, read as `.images`) or NumPy arrays ("np"); `**inputs` the flow
// cannot see may ask so. Tensors ("pt") on its device still report, and so
// does a call given a device tensor.
TEST(LintDC113, SaysNothingOfAPipelinesImagesOrArrays) {
  const std::string validation =
      "import numpy as np\n"
      "import torch\n"
      "from diffusers import StableDiffusionPipeline\n"
      "def validate(prompt, device):\n"
      "    pipe = StableDiffusionPipeline.from_pretrained('x')\n"
      "    pipe = pipe.to(device)\n"
      "    images = [pipe(prompt, num_inference_steps=25).images[0] for _ in range(4)]\n"
      "    grid = np.stack([np.asarray(img) for img in images])\n"
      "    arrays = pipe(prompt, output_type='np').images\n"
      "    diff = np.abs(arrays - 1).max()\n"
      "    latents = pipe(prompt, output_type='pt').images\n"
      "    return grid, diff, latents.numpy()\n";
  EXPECT_EQ(found(validation, "DC113"), (Lines{"12 DC113"}));
  const std::string tests =
      "import numpy as np\n"
      "import torch\n"
      "class PipelineTests:\n"
      "    def get_dummy_inputs(self):\n"
      "        return {'prompt': 'a cat', 'output_type': 'np'}\n"
      "    def test_lora(self, components, x):\n"
      "        pipe = self.pipeline_class(**components)\n"
      "        pipe = pipe.to('cuda')\n"
      "        inputs = self.get_dummy_inputs()\n"
      "        a = pipe(**inputs)[0]\n"
      "        b = pipe(**inputs, generator=torch.manual_seed(0))[0]\n"
      "        assert np.allclose(a, b)\n"
      "        out = pipe(x.cuda())\n"
      "        return out.numpy()\n";
  EXPECT_EQ(found(tests, "DC113"), (Lines{"14 DC113"}));
  EXPECT_EQ(only(tests, "DC113").message,
            ".numpy() on a tensor that is on a device raises a TypeError; copy it to the host "
            "first: .detach().cpu().numpy()");
}

// Keywords a dict of the file gives (`{"output_type": "np"}`, returned by a
// helper, set as `inputs["output_type"] = "pil"`, copied with `.update()`)
// ask a pipeline for arrays or images, even one the file moved as a module;
// a dict asking "pt" gives tensors on its device.
TEST(LintDC113, SaysNothingWhereADictOfKeywordsAsksForArrays) {
  const std::string helper =
      "import numpy as np\n"
      "import torch\n"
      "class DepthTests:\n"
      "    def get_dummy_inputs(self, device):\n"
      "        inputs = {'prompt': 'a', 'generator': torch.manual_seed(0), 'output_type': 'np'}\n"
      "        return inputs\n"
      "    def get_pt_inputs(self, device):\n"
      "        return {'prompt': 'a', 'output_type': 'pt'}\n"
      "    def test_fp16(self, components):\n"
      "        pipe = self.pipeline_class(**components)\n"
      "        pipe.to('cuda')\n"
      "        output = pipe(**self.get_dummy_inputs('cuda'))[0]\n"
      "        tensors = pipe(**self.get_pt_inputs('cuda'))[0]\n"
      "        return np.abs(output - 1).max(), tensors.numpy()\n";
  EXPECT_EQ(found(helper, "DC113"), (Lines{"14 DC113"}));
  EXPECT_EQ(only(helper, "DC113").message,
            ".numpy() on a tensor that is on a device raises a TypeError; copy it to the host "
            "first: .detach().cpu().numpy()");
  const std::string batched =
      "import numpy as np\n"
      "def test_batch(components, x):\n"
      "    pipe = Pipeline(**components)\n"
      "    pipe.to('cuda')\n"
      "    inputs = {'prompt': 'a cat'}\n"
      "    inputs['output_type'] = 'pil'\n"
      "    batched = {}\n"
      "    batched.update(inputs)\n"
      "    batched['prompt'] = ['a cat', 'a dog']\n"
      "    one = pipe(**inputs)[0]\n"
      "    two = pipe(**batched)[0]\n"
      "    diff = np.abs(np.asarray(one) - np.asarray(two[0])).max()\n"
      "    return diff, pipe(x.cuda()).numpy()\n";
  EXPECT_EQ(found(batched, "DC113"), (Lines{"13 DC113"}));
}

// What a test asserts a value is (`assert isinstance(out, PIL.Image.Image)`)
// is no tensor from there on; a function the flow does not follow, asked
// for `output_type="pil"` or "np", gives none either. Asked for "pt", or
// asked nothing, it gives what it computes on the device.
TEST(LintDC113, SaysNothingOfWhatAnAssertOrOutputTypeSaysIsNoTensor) {
  const std::string asserted =
      "import numpy as np\n"
      "import PIL.Image\n"
      "import torch\n"
      "def test_decode(latents):\n"
      "    output = decode(latents.cuda(), output_type='pt')\n"
      "    assert isinstance(output, PIL.Image.Image)\n"
      "    image = np.array(output)\n"
      "    other = decode(latents.cuda())\n"
      "    return image, other.numpy()\n";
  EXPECT_EQ(found(asserted, "DC113"), (Lines{"9 DC113"}));
  EXPECT_EQ(only(asserted, "DC113").message,
            ".numpy() on a tensor that is on a device raises a TypeError; copy it to the host "
            "first: .detach().cpu().numpy()");
  const std::string rendered =
      "import numpy as np\n"
      "import torch\n"
      "def check(x):\n"
      "    y = x.cuda() * 2\n"
      "    images = render(y, output_type='pil')\n"
      "    arrays = render(y, output_type='np')\n"
      "    tensors = render(y, output_type='pt')\n"
      "    a = np.asarray(images)\n"
      "    b = np.abs(arrays)\n"
      "    return a, b, tensors.numpy()\n";
  EXPECT_EQ(found(rendered, "DC113"), (Lines{"10 DC113"}));
}

// One sample of a batch (a row of a device tensor) has only torch's own
// attributes; any other one belongs to a Tensor subclass (a list of pending
// transforms, a metadata dict), no device tensor. The sample itself is.
TEST(LintDC113, SaysNothingOfAnAttributeOfOneSampleThatTorchDoesNotHave) {
  const std::string lazy =
      "import numpy as np\n"
      "import torch\n"
      "def train(model, loader, device):\n"
      "    model = model.to(device)\n"
      "    for batch in loader:\n"
      "        inputs, labels = batch['img'].to(device), batch['seg'].to(device)\n"
      "        outputs = model(inputs)\n"
      "        for item, seg in zip(outputs, labels):\n"
      "            np.testing.assert_array_equal(item.pending_operations, [])\n"
      "            np.testing.assert_array_equal(seg.applied_operations, [])\n"
      "            np.testing.assert_array_equal(item.numpy(), 0)\n";
  EXPECT_EQ(found(lazy, "DC113"), (Lines{"11 DC113"}));
  const std::string meta =
      "import numpy as np\n"
      "import torch\n"
      "def rows(x, net, device):\n"
      "    net.to(device)\n"
      "    out = net(x.to(device))\n"
      "    for row in out:\n"
      "        print(np.array(row.meta))\n"
      "        print(np.array(row.grad))\n";
  EXPECT_EQ(found(meta, "DC113"), (Lines{"8 DC113"}));
}

}  // namespace
}  // namespace devcheck::lint
