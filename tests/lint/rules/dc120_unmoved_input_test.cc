#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC120, FindsABatchLeftOnTheHost) {
  const std::string source =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = Net().to(device)\n"
      "loader = DataLoader(data, batch_size=8)\n"
      "def test():\n"
      "    correct = 0\n"
      "    for images, labels in loader:\n"
      "        outputs = model(images.to(device))\n"
      "        correct += (torch.max(outputs.data, 1)[1] == labels).sum().item()\n"
      "    return correct\n"
      "def fixed():\n"
      "    for images, labels in loader:\n"
      "        images, labels = images.to(device), labels.to(device)\n"
      "        outputs = model(images)\n"
      "        correct = (outputs.argmax(1) == labels).sum()\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"10 DC120"}));
  EXPECT_EQ(only(source, "DC120").message,
            "labels is a batch of a DataLoader (line 8), on the CPU, and meets tensors on a device "
            "here unmoved: a device mismatch; move it to the device first (.to(device))");
}

TEST(LintDC120, FindsADatasetItemAndAModelNeverMoved) {
  const std::string source =
      "import torch\n"
      "import torchvision\n"
      "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
      "test_data = torchvision.datasets.FashionMNIST('data', train=False)\n"
      "model = Net().to(device)\n"
      "x, y = test_data[0][0], test_data[0][1]\n"
      "pred = model(x)\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = torch.nn.Linear(2, 2)\n"
      "def unmoved(batch):\n"
      "    net = Net()\n"
      "    return net(batch.to(device))\n"
      "def moved(batch):\n"
      "    net = Net().to(device)\n"
      "    return net(batch.to(device))\n";
  // An item where it meets the model; a model never moved where it is made.
  // (Net has a layer: a module without parameters computes where its inputs are.)
  EXPECT_EQ(found(source, "DC120"), (Lines{"7 DC120", "13 DC120"}));
  EXPECT_EQ(only("import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
                 "        super().__init__()\n        self.fc = torch.nn.Linear(2, 2)\n"
                 "def f(b):\n    net = Net()\n    return net(b.cuda())\n",
                 "DC120")
                .message,
            "Net(...) makes a model on the CPU that is never moved to a device, and line 8 gives "
            "net tensors on a device: a device mismatch; move it where it is made: .to(device)");
}

// A wrapper that scatters its inputs (DataParallel, DDP with device_ids),
// a loss (no parameters), a tensor moved first: nothing.
TEST(LintDC120, SaysNothingWhereInputsAreMovedForIt) {
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "model = nn.DataParallel(nn.Linear(4, 4)).cuda()\n"
                  "loss_fn = nn.MSELoss()\n"
                  "for x, y in torch.utils.data.DataLoader(data):\n"
                  "    out = model(x)\n"
                  "    loss = loss_fn(out, y.cuda())\n",
                  "DC120"),
            Lines{});
}

// A model never moved and handed to a trainer: found where the trainer
// gives it the batches it moved (once), naming where the model was made.
TEST(LintDC120, FindsAModelNeverMovedWhereTheFunctionGivenItUsesIt) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Trainer:\n"
      "    def __init__(self, model, device):\n"
      "        self.model = model\n"
      "        self.device = device\n"
      "    def step(self, images):\n"
      "        images = images.to(self.device)\n"
      "        self.model(images)\n"
      "        return self.model(images)\n"
      "def main(images):\n"
      "    model = nn.Sequential(nn.Conv2d(3, 8, 3))\n"
      "    Trainer(model, torch.device('cuda')).step(images)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"9 DC120"}));
  EXPECT_NE(only(source, "DC120")
                .message.find("self.model is a model nn.Sequential(...) made (line 12) on the CPU"),
            std::string::npos);
}

TEST(LintDC120, FindsABatchTakenWithNextOrRunThroughSelfForward) {
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "import lightning.pytorch as pl\n"
                  "class Lit(pl.LightningModule):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.encoder = nn.Linear(4, 2)\n"
                  "    def training_step(self, dataloader_iter):\n"
                  "        batch, batch_idx, dataloader_idx = next(dataloader_iter)\n"
                  "        x, y = batch\n"
                  "        return self.encoder(x).sum()\n",
                  "DC120"),
            (Lines{"10 DC120"}));
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "class Net(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.fc = nn.Linear(4, 2)\n"
                  "    def forward(self, x):\n"
                  "        return self.fc(x)\n"
                  "    def warm_up(self, train_loader):\n"
                  "        for x, y in train_loader:\n"
                  "            self.forward(x)\n"
                  "            break\n",
                  "DC120"),
            (Lines{"10 DC120"}));
  // Moved first.
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "class Net(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.fc = nn.Linear(4, 2)\n"
                  "    def warm_up(self, train_loader):\n"
                  "        x, y = next(iter(train_loader))\n"
                  "        self.forward(x.to(self.fc.weight.device))\n",
                  "DC120"),
            Lines{});
}

TEST(LintDC120, FindsABatchOfALoaderHandedToAFunctionUnderAnotherName) {
  const std::string head =
      "import torch.nn as nn\n"
      "from torch.utils.data import DataLoader\n"
      "def train(model, data, device):\n"
      "    for x, y in data:\n";
  const std::string tail =
      "def main(dataset):\n"
      "    model = nn.Linear(4, 2).to('cuda')\n"
      "    train(model, DataLoader(dataset, batch_size=8), 'cuda')\n";
  EXPECT_EQ(found(head + "        out = model(x)\n" + tail, "DC120"), (Lines{"5 DC120"}));
  EXPECT_EQ(found(head + "        out = model(x.to(device))\n" + tail, "DC120"), Lines{});
}

// A wrapper's model that only fit() moves, used by predict() on an object
// loaded without fit() (issue 38: dashAI's classifier): found where the
// model is given the device tensors, with the call that skips fit().
TEST(LintDC120, FindsAModelOnlyAnotherMethodMovesWhereACallSkipsIt) {
  const std::string source =
      "import torch\n"
      "from torchvision.models import resnet18\n"
      "class Classifier:\n"
      "    def __init__(self):\n"
      "        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "        self.model = resnet18()\n"
      "    def fit(self, loader):\n"
      "        self.model.to(self.device)\n"
      "    @classmethod\n"
      "    def load(cls, path):\n"
      "        obj = cls()\n"
      "        obj.model.load_state_dict(torch.load(path, map_location='cpu'))\n"
      "        return obj\n"
      "    def predict(self, images):\n"
      "        return self.model(images.to(self.device))\n"
      "def predict_saved(path, images):\n"
      "    classifier = Classifier.load(path)\n"
      "    return classifier.predict(images)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"15 DC120"}));
  EXPECT_NE(only(source, "DC120")
                .message.find("only other methods of its class move to a device, "
                              "and line 18 (in 'predict_saved') calls predict() "
                              "without them"),
            std::string::npos);
  std::string fixed = source;
  fixed.replace(fixed.find("    return classifier.predict"), 0, "    classifier.fit([])\n");
  EXPECT_EQ(found(fixed, "DC120"), Lines{});
}

// A Hugging Face model reloaded with from_pretrained and never moved, given
// inputs moved to a device (issue 38: a BERT classification notebook); not
// once it is moved, nor loaded with device_map=.
TEST(LintDC120, FindsAPretrainedModelNeverMovedGivenInputsOnADevice) {
  const std::string source =
      "import torch\n"
      "from transformers import AutoModelForSequenceClassification, AutoTokenizer\n"
      "def predict(text, device):\n"
      "    model = AutoModelForSequenceClassification.from_pretrained('saved')\n"
      "    tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')\n"
      "    encoding = tokenizer(text, return_tensors='pt')\n"
      "    encoding = {k: v.to(device) for k, v in encoding.items()}\n"
      "    return model(**encoding)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"4 DC120"}));
  for (const std::string& fix : {"('saved').to(device)", "('saved', device_map='auto')"}) {
    std::string fixed = source;
    fixed.replace(fixed.find("('saved')"), 9, fix);
    EXPECT_EQ(found(fixed, "DC120"), Lines{}) << fix;
  }
}

// A TorchMetrics metric (an nn.Module with its state on the CPU) never moved
// and given device tensors (issue 38's fifth round: Lightning-AI/torchmetrics
// #1047); not once moved. A model a function of the file moves in place
// is on the device for the functions it is given to after that call.
TEST(LintDC120, FindsAMetricNeverMovedAndFollowsModelsMovedByCallees) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torchmetrics import PeakSignalNoiseRatio\n"
      "def train(model, device):\n"
      "    model.to(device)\n"
      "def evaluate(model, noisy, clean, device):\n"
      "    psnr = PeakSignalNoiseRatio()\n"
      "    preds = model(noisy.to(device))\n"
      "    return psnr(preds, clean.to(device))\n"
      "def main(noisy, clean):\n"
      "    device = torch.device('cuda')\n"
      "    model = nn.Conv2d(3, 3, 3)\n"
      "    train(model, device)\n"
      "    return evaluate(model, noisy, clean, device)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"7 DC120"}));
  std::string fixed = source;
  fixed.replace(fixed.find("Ratio()"), 7, "Ratio().to(device)");
  EXPECT_EQ(found(fixed, "DC120"), Lines{});
}

// A tokenizer's mask left on the host, given to generate() of a model on a
// device (the tuning half's databrickslabs/dolly#180), is named as what it
// is; ids moved to the device are not reported.
TEST(LintDC120, FindsATokenizersMaskGivenToGenerateOfAModelOnADevice) {
  const std::string source =
      "import torch\n"
      "def run(model, tokenizer, prompt):\n"
      "    model = model.to('cuda')\n"
      "    inputs = tokenizer(prompt, return_tensors='pt')\n"
      "    ids = inputs['input_ids'].to('cuda')\n"
      "    mask = inputs['attention_mask']\n"
      "    return model.generate(input_ids=ids, attention_mask=mask)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"7 DC120"}));
  EXPECT_NE(only(source, "DC120").message.find("mask is a tokenizer's output (line 4)"),
            std::string::npos);
  std::string fixed = source;
  fixed.replace(fixed.find("inputs['attention_mask']"), 24, "inputs['attention_mask'].to('cuda')");
  EXPECT_EQ(found(fixed, "DC120"), Lines{});
}

}  // namespace
}  // namespace devcheck::lint
