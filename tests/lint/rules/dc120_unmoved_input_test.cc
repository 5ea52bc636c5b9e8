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
  for (const char* fix : {"('saved').to(device)", "('saved', device_map='auto')"}) {
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

// The bug as users write it in other shapes (issue 38's seventh round:
// variants of the tuning cases' bugs that the rules missed, with their
// fixed twins): a loader named otherwise, a module made and moved in one
// line, an image made a tensor, a batch handed on to a helper, a loss, a
// metric or a model's method, a configured device, models of a dict moved
// one by one.
TEST(LintDC120, FindsInputsLeftOnTheHostInTheShapesUsersWriteThem) {
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
      // library train dl name
      {"def train_one_epoch(model, dl, optimizer, device):\n"
       "    model.train()\n"
       "    for x, y in dl:\n"
       "        x = x.to(device)\n"
       "        loss = F.cross_entropy(model(x), y)\n"
       "        optimizer.zero_grad()\n"
       "        loss.backward()\n",
       "def train_one_epoch(model, dl, optimizer, device):\n"
       "    model.train()\n"
       "    for x, y in dl:\n"
       "        x = x.to(device)\n"
       "        y = y.to(device)\n"
       "        loss = F.cross_entropy(model(x), y)\n"
       "        optimizer.zero_grad()\n"
       "        loss.backward()\n"},
      // twin comprehension move
      {"def train(model, dl, device):\n"
       "    for batch in dl:\n"
       "        x, y = batch\n"
       "        loss = F.cross_entropy(model(x.to(device)), y)\n",
       "def train(model, dl, device):\n"
       "    for batch in dl:\n"
       "        batch = [t.to(device) for t in batch]\n"
       "        x, y = batch\n"
       "        loss = F.cross_entropy(model(x.to(device)), y)\n"},
      // sequence model in class
      {"class Seq(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.rnn = nn.LSTM(4, 8)\n"
       "    def forward(self, x):\n"
       "        return self.rnn(x)[0]\n"
       "class Agent:\n"
       "    def __init__(self, device):\n"
       "        self.device = device\n"
       "        self.net = Seq().to(device)\n"
       "    def learn(self, loader):\n"
       "        for x, y in loader:\n"
       "            out = self.net(x)\n",
       "class Seq(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.rnn = nn.LSTM(4, 8)\n"
       "    def forward(self, x):\n"
       "        return self.rnn(x)[0]\n"
       "class Agent:\n"
       "    def __init__(self, device):\n"
       "        self.device = device\n"
       "        self.net = Seq().to(device)\n"
       "    def learn(self, loader):\n"
       "        for x, y in loader:\n"
       "            x = x.to(self.device)\n"
       "            out = self.net(x)\n"},
      // transform image input
      {"from PIL import Image\n"
       "from torchvision import transforms\n"
       "def predict(path):\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    tf = transforms.Compose([transforms.ToTensor()])\n"
       "    img = tf(Image.open(path)).unsqueeze(0)\n"
       "    return model(img)\n",
       "from PIL import Image\n"
       "from torchvision import transforms\n"
       "def predict(path):\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    tf = transforms.Compose([transforms.ToTensor()])\n"
       "    img = tf(Image.open(path)).unsqueeze(0)\n"
       "    img = img.to(device)\n"
       "    return model(img)\n"},
      // compose transform in class
      {"from torchvision import transforms\n"
       "from PIL import Image\n"
       "class Predictor:\n"
       "    def __init__(self, device):\n"
       "        self.device = device\n"
       "        self.model = Net().to(device)\n"
       "        self.tf = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])\n"
       "    def predict(self, path):\n"
       "        x = self.tf(Image.open(path)).unsqueeze(0)\n"
       "        return self.model(x)\n",
       "from torchvision import transforms\n"
       "from PIL import Image\n"
       "class Predictor:\n"
       "    def __init__(self, device):\n"
       "        self.device = device\n"
       "        self.model = Net().to(device)\n"
       "        self.tf = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])\n"
       "    def predict(self, path):\n"
       "        x = self.tf(Image.open(path)).unsqueeze(0)\n"
       "        x = x.to(self.device)\n"
       "        return self.model(x)\n"},
      // to tensor functional
      {"import torchvision.transforms.functional as TF\n"
       "from PIL import Image\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    x = TF.to_tensor(Image.open(\"a.png\")).unsqueeze(0)\n"
       "    out = model(x)\n",
       "import torchvision.transforms.functional as TF\n"
       "from PIL import Image\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    x = TF.to_tensor(Image.open(\"a.png\")).unsqueeze(0)\n"
       "    x = x.to(device)\n"
       "    out = model(x)\n"},
      // train step function batch param
      {"def train_step(model, batch, device):\n"
       "    x, y = batch\n"
       "    x = x.to(device)\n"
       "    return F.cross_entropy(model(x), y)\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for batch in DataLoader(ds):\n"
       "        train_step(model, batch, device)\n",
       "def train_step(model, batch, device):\n"
       "    x, y = batch\n"
       "    x = x.to(device)\n"
       "    y = y.to(device)\n"
       "    return F.cross_entropy(model(x), y)\n"
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for batch in DataLoader(ds):\n"
       "        train_step(model, batch, device)\n"},
      // custom loss function
      {"def my_loss(pred, target):\n"
       "    return ((pred - target) ** 2).mean()\n"
       "def main(ds):\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        loss = my_loss(model(x.to(device)), y)\n",
       "def my_loss(pred, target):\n"
       "    return ((pred - target) ** 2).mean()\n"
       "def main(ds):\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        y = y.to(device)\n"
       "        loss = my_loss(model(x.to(device)), y)\n"},
      // metric function accuracy
      {"def accuracy(logits, labels):\n"
       "    return (logits.argmax(1) == labels).float().mean()\n"
       "def validate(model, loader, device):\n"
       "    for x, y in loader:\n"
       "        logits = model(x.to(device))\n"
       "        acc = accuracy(logits, y)\n"
       "def main(ds):\n"
       "    device = torch.device(\"cuda\")\n"
       "    validate(Net().to(device), DataLoader(ds), device)\n",
       "def accuracy(logits, labels):\n"
       "    return (logits.argmax(1) == labels).float().mean()\n"
       "def validate(model, loader, device):\n"
       "    for x, y in loader:\n"
       "        logits = model(x.to(device))\n"
       "        y = y.to(device)\n"
       "        acc = accuracy(logits, y)\n"
       "def main(ds):\n"
       "    device = torch.device(\"cuda\")\n"
       "    validate(Net().to(device), DataLoader(ds), device)\n"},
      // loss in trainer helper method
      {"class Trainer:\n"
       "    def __init__(self, model, device):\n"
       "        self.model = model.to(device)\n"
       "        self.device = device\n"
       "    def compute_loss(self, out, y):\n"
       "        return F.cross_entropy(out, y)\n"
       "    def fit(self, loader):\n"
       "        for x, y in loader:\n"
       "            out = self.model(x.to(self.device))\n"
       "            loss = self.compute_loss(out, y)\n",
       "class Trainer:\n"
       "    def __init__(self, model, device):\n"
       "        self.model = model.to(device)\n"
       "        self.device = device\n"
       "    def compute_loss(self, out, y):\n"
       "        return F.cross_entropy(out, y)\n"
       "    def fit(self, loader):\n"
       "        for x, y in loader:\n"
       "            out = self.model(x.to(self.device))\n"
       "            y = y.to(self.device)\n"
       "            loss = self.compute_loss(out, y)\n"},
      // model method predict
      {"class Classifier(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.fc = nn.Linear(4, 2)\n"
       "    def forward(self, x):\n"
       "        return self.fc(x)\n"
       "    def predict(self, x):\n"
       "        return self.forward(x).argmax(1)\n"
       "def main(ds):\n"
       "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
       "    clf = Classifier().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        preds = clf.predict(x)\n",
       "class Classifier(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.fc = nn.Linear(4, 2)\n"
       "    def forward(self, x):\n"
       "        return self.fc(x)\n"
       "    def predict(self, x):\n"
       "        return self.forward(x).argmax(1)\n"
       "def main(ds):\n"
       "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
       "    clf = Classifier().to(device)\n"
       "    for x, y in DataLoader(ds):\n"
       "        x = x.to(device)\n"
       "        preds = clf.predict(x)\n"},
      // eq method labels
      {"def test(model, dl, device):\n"
       "    correct = 0\n"
       "    for img, label in dl:\n"
       "        img = img.to(device)\n"
       "        pred = model(img)\n"
       "        correct += pred.argmax(1).eq(label).sum().item()\n"
       "    return correct\n",
       "def test(model, dl, device):\n"
       "    correct = 0\n"
       "    for img, label in dl:\n"
       "        img = img.to(device)\n"
       "        label = label.to(device)\n"
       "        pred = model(img)\n"
       "        correct += pred.argmax(1).eq(label).sum().item()\n"
       "    return correct\n"},
      // twin lengths packed
      {"from torch.nn.utils.rnn import pack_padded_sequence\n"
       "class Enc(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.emb = nn.Embedding(10, 4)\n"
       "        self.rnn = nn.GRU(4, 4, batch_first=True)\n"
       "    def forward(self, x, lengths):\n"
       "        return self.rnn(pack_padded_sequence(self.emb(x), lengths, batch_first=True))\n"
       "def train(model, dl, device):\n"
       "    for x, lengths, y in dl:\n"
       "        x = x.to(device)\n"
       "        out, h = model(x, lengths)\n"
       "        loss = F.cross_entropy(h[-1], y)\n",
       "from torch.nn.utils.rnn import pack_padded_sequence\n"
       "class Enc(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.emb = nn.Embedding(10, 4)\n"
       "        self.rnn = nn.GRU(4, 4, batch_first=True)\n"
       "    def forward(self, x, lengths):\n"
       "        return self.rnn(pack_padded_sequence(self.emb(x), lengths, batch_first=True))\n"
       "def train(model, dl, device):\n"
       "    for x, lengths, y in dl:\n"
       "        x = x.to(device)\n"
       "        y = y.to(device)\n"
       "        out, h = model(x, lengths)\n"
       "        loss = F.cross_entropy(h[-1], y)\n"},
      // config dict device
      {"def main(cfg):\n"
       "    model = Net().to(cfg[\"device\"])\n"
       "    loader = DataLoader(data, batch_size=8)\n"
       "    for x, y in loader:\n"
       "        out = model(x)\n",
       "def main(cfg):\n"
       "    model = Net().to(cfg[\"device\"])\n"
       "    loader = DataLoader(data, batch_size=8)\n"
       "    for x, y in loader:\n"
       "        x = x.to(cfg[\"device\"])\n"
       "        out = model(x)\n"},
      // model dict lookup
      {"def main(ds):\n"
       "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
       "    nets = {\"a\": Net(), \"b\": Net()}\n"
       "    for x, _ in DataLoader(ds):\n"
       "        out = nets[\"a\"](x.to(device))\n",
       "def main(ds):\n"
       "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
       "    nets = {\"a\": Net(), \"b\": Net()}\n"
       "    for k in nets:\n"
       "        nets[k].to(device)\n"
       "    for x, _ in DataLoader(ds):\n"
       "        out = nets[\"a\"](x.to(device))\n"},
  };
  expect_bugs_found_and_twins_clean(net, variants, "DC120");
}

// DC120 in the shapes of the third blind draw's tuning half (issue 38's
// eighth round): a plain class's method run from the module's code, and a
// batch handed whole to a model of the file whose forward reads its parts.
// Each shape is found, and a near miss says nothing.

// A plain class keeps a model moved in __init__ (or one given to its
// constructor); a method called from the module's code with a DataLoader
// runs it on the loader's batches (pyDVL's EkfacInfluence.fit): the method
// reads what __init__ set, as it does when the call sits in a function.
TEST(LintDC120, FindsABatchGivenToAPlainClassesModelFromTheModulesCode) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.utils.data import DataLoader, TensorDataset\n"
      "class Influence:\n"
      "    def __init__(self, model):\n"
      "        self.model = model\n"
      "    def fit(self, data):\n"
      "        for x, _ in data:\n"
      "            out = self.model(x)\n"
      "        return self\n"
      "model = nn.Linear(10, 3).to('cuda')\n"
      "xs, ys = torch.randn(256, 10), torch.randint(0, 3, (256,))\n"
      "loader = DataLoader(TensorDataset(xs, ys), batch_size=32)\n"
      "Influence(model).fit(loader)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"9 DC120"}));
  std::string moved = source;
  moved.replace(moved.find("self.model(x)"), 13, "self.model(x.to('cuda'))");
  EXPECT_EQ(found(moved, "DC120"), (Lines{}));
}

// A batch of a DataLoader handed whole to a model of the file on a device
// (`model(batch)`, through two functions): its forward reads the batch's
// parts on the host and gives them to its layers (pykt's ATDKT). Not where
// the forward moves them, nor where another call gives the forward what is
// on the device.
TEST(LintDC120, FindsTheHostPartsOfABatchAForwardIsGivenWhole) {
  const std::string source =
      "import torch\n"
      "from torch import nn\n"
      "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.emb = nn.Embedding(10, 4)\n"
      "    def forward(self, batch, train=False):\n"
      "        c = batch['c'].long()\n"
      "        return self.emb(c)\n"
      "def step(model, batch):\n"
      "    return model(batch, train=True)\n"
      "def train(model, train_loader):\n"
      "    for data in train_loader:\n"
      "        loss = step(model, data)\n"
      "def main(train_loader):\n"
      "    model = Net().to(device)\n"
      "    train(model, train_loader)\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"10 DC120"}));
  std::string moved = source;
  moved.replace(moved.find("self.emb(c)"), 11, "self.emb(c.to(device))");
  EXPECT_EQ(found(moved, "DC120"), (Lines{}));
  // Another call gives the forward a tensor on the device: its input may be
  // either, and nothing is said.
  const std::string both = source + "    model(torch.ones(2, device=device))\n";
  EXPECT_EQ(found(both, "DC120"), (Lines{}));
}

// A module of the file that keeps only layers without parameters (an
// activation, a loss given no weight) computes where its inputs are: never
// moved, it is no "model left on the CPU" (MONAI's adversarial loss). One
// that keeps a layer with parameters is.
TEST(LintDC120, SaysNothingOfAParameterFreeModuleOfTheFileLeftUnmoved) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.nn.modules.loss import _Loss\n"
      "class AdvLoss(_Loss):\n"
      "    def __init__(self, criterion='mse'):\n"
      "        super().__init__()\n"
      "        if criterion == 'bce':\n"
      "            self.act = nn.Sigmoid()\n"
      "            self.fn = nn.BCELoss(reduction='mean')\n"
      "        else:\n"
      "            self.act = nn.LeakyReLU(0.05)\n"
      "            self.fn = nn.MSELoss()\n"
      "    def forward(self, x, y):\n"
      "        return self.fn(self.act(x), y)\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.act = nn.ReLU()\n"
      "        self.fc = nn.Linear(3, 3)\n"
      "    def forward(self, x):\n"
      "        return self.fc(self.act(x))\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "x = torch.randn(2, 3, device=device)\n"
      "loss = AdvLoss()\n"
      "head = Head()\n"
      "print(loss(x, x), head(x))\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"25 DC120"}));
  std::string weighted = source;
  weighted.replace(weighted.find("nn.MSELoss()"), 12, "nn.BCELoss(w)");
  EXPECT_EQ(found(weighted, "DC120"), (Lines{"24 DC120", "25 DC120"}));
}

// A module of the file whose __init__ keeps only arguments annotated as
// numbers, bools or strings (`h: int`) holds no tensor: left unmoved and
// given device tensors, it computes where they are (kornia's warp tests).
// One whose argument is not so annotated may hold a tensor, and is found.
TEST(LintDC120, SaysNothingOfAModuleKeepingOnlyArgumentsTypedAsNumbers) {
  const std::string warp =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Warp(nn.Module):\n"
      "    def __init__(self, h: int, w: int, align: bool, mode: str = 'zeros'):\n"
      "        super().__init__()\n"
      "        self.h = h\n"
      "        self.w = w\n"
      "        self.mode = mode\n"
      "    def forward(self, x):\n"
      "        return nn.functional.interpolate(x, size=(self.h, self.w))\n"
      "class TestWarp:\n"
      "    def test_script(self, device, dtype):\n"
      "        img = torch.arange(48.0, device=device, dtype=dtype).view(1, 3, 4, 4)\n"
      "        net = Warp(3, 4, True)\n"
      "        script_net = torch.jit.script(net)\n"
      "        return script_net(img)\n";
  EXPECT_EQ(found(warp, "DC120"), Lines{});
  std::string untyped = warp;
  untyped.replace(untyped.find("h: int"), 6, "h");
  const Finding f = only(untyped, "DC120");
  EXPECT_EQ(f.line, 14);
  EXPECT_EQ(f.message,
            "Warp(...) makes a model on the CPU that is never moved to a device, and line 16 "
            "gives script_net tensors on a device: a device mismatch; move it where it is "
            "made: .to(device)");
  const std::string scale =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Scale(nn.Module):\n"
      "    def __init__(self, factor: float, shift):\n"
      "        super().__init__()\n"
      "        self.factor = factor\n"
      "        self.shift = shift\n"
      "    def forward(self, x):\n"
      "        return x * self.factor + self.shift\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "x = torch.randn(2, 3, device=device)\n"
      "print(Scale(2.0, 1.0)(x))\n";
  EXPECT_EQ(found(scale, "DC120"), Lines{"12 DC120"});
  std::string typed = scale;
  typed.replace(typed.find("shift)"), 6, "shift: float)");
  EXPECT_EQ(found(typed, "DC120"), Lines{});
}

// A copy of a module's input to the host meets the module's device where
// the file moves something to a device; in a file that moves nothing there,
// the copy is deliberate and runs on the CPU.
TEST(LintDC120, FindsAHostCopyInAModuleOnlyWhereTheFileUsesADevice) {
  const std::string module =
      "import torch\n"
      "import torch.nn as nn\n"
      "def bucket(ids):\n"
      "    return ids.sort().values\n"
      "class Pool(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.proj = nn.Linear(4, 4)\n"
      "    def forward(self, x, ids):\n"
      "        order = bucket(ids.cpu())\n"
      "        return order[self.proj(x).max(-1).values > 0]\n";
  EXPECT_EQ(found(module + "def main(x, ids):\n    return Pool().cuda()(x, ids)\n", "DC120"),
            (Lines{"11 DC120"}));
  EXPECT_EQ(found(module + "def main(x, ids):\n    return Pool()(x, ids)\n", "DC120"), Lines{});
}

// Lightning Fabric's setup_dataloaders() and Accelerate's prepare() give
// loaders that put their batches on the device; without them the batches of
// the same loop are on the host.
TEST(LintDC120, SaysNothingOfTheBatchesOfAFrameworksLoaders) {
  const std::string fabric =
      "import torch\n"
      "from torch import nn\n"
      "from lightning.fabric import Fabric\n"
      "from torchmetrics import Accuracy\n"
      "def main(ds):\n"
      "    fabric = Fabric()\n"
      "    model = fabric.setup(nn.Linear(4, 2))\n"
      "    train_loader = torch.utils.data.DataLoader(ds, batch_size=4)\n"
      "    train_loader = fabric.setup_dataloaders(train_loader)\n"
      "    acc = Accuracy(task='multiclass', num_classes=2).to(fabric.device)\n"
      "    for x, y in train_loader:\n"
      "        acc(model(x), y)\n";
  EXPECT_EQ(found(fabric, "DC120"), (Lines{}));
  const std::string accelerate =
      "import torch\n"
      "from torch import nn\n"
      "from accelerate import Accelerator\n"
      "def main(ds, device):\n"
      "    accelerator = Accelerator()\n"
      "    loader = torch.utils.data.DataLoader(ds, batch_size=4)\n"
      "    model, loader = accelerator.prepare(nn.Linear(4, 2), loader)\n"
      "    head = nn.Linear(2, 2).to(device)\n"
      "    for x, y in loader:\n"
      "        head(model(x))\n";
  EXPECT_EQ(found(accelerate, "DC120"), (Lines{}));
  const std::string plain =
      "import torch\n"
      "from torch import nn\n"
      "from torchmetrics import Accuracy\n"
      "def main(ds, device):\n"
      "    model = nn.Linear(4, 2).to(device)\n"
      "    train_loader = torch.utils.data.DataLoader(ds, batch_size=4)\n"
      "    acc = Accuracy(task='multiclass', num_classes=2).to(device)\n"
      "    for x, y in train_loader:\n"
      "        acc(model(x), y)\n";
  EXPECT_EQ(found(plain, "DC120"), (Lines{"9 DC120", "9 DC120"}));
}

// A loop over a dict batch's keys that sets each entry moved moves the whole
// batch (timm's NaFlex prefetcher); moving only listed keys leaves the
// others on the host.
TEST(LintDC120, SaysNothingOfADictBatchWhoseEntriesAreEachMoved) {
  const std::string source =
      "import torch\n"
      "from torch import nn\n"
      "def evaluate(model, loader, device):\n"
      "    model.to(device)\n"
      "    for batch, target in loader:\n"
      "        for k, v in batch.items():\n"
      "            if isinstance(v, torch.Tensor):\n"
      "                batch[k] = batch[k].to(device)\n"
      "        out = model(batch['patches'])\n"
      "def evaluate_keys(model, loader, device):\n"
      "    model.to(device)\n"
      "    for batch, target in loader:\n"
      "        for k in batch.keys():\n"
      "            batch[k] = batch[k].to(device)\n"
      "        out = model(batch['patches'])\n"
      "def evaluate_some(model, loader, device):\n"
      "    model.to(device)\n"
      "    for batch, target in loader:\n"
      "        for k in ['mask']:\n"
      "            batch[k] = batch[k].to(device)\n"
      "        out = model(batch['patches'])\n";
  EXPECT_EQ(found(source, "DC120"), (Lines{"21 DC120"}));
}

// nn.Module's cpu() works in place: a checkpoint saved from `m.cpu()` inside
// the loop that trains m leaves it on the CPU for the next steps. Not where
// the loop moves it back, nor a loop over several models.
TEST(LintDC120, FindsAModuleMovedToTheHostInsideTheLoopThatUsesIt) {
  const std::string checkpoint =
      "import torch\n"
      "import torch.nn as nn\n"
      "def train(data, steps, device):\n"
      "    net = nn.Linear(4, 4).to(device)\n"
      "    opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
      "    for step in range(steps):\n"
      "        loss = net(data.to(device)).sum()\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "        if step % 100 == 0:\n"
      "            torch.save(net.cpu().state_dict(), 'net.pt')\n";
  EXPECT_EQ(found(checkpoint, "DC120"), (Lines{"11 DC120"}));
  EXPECT_NE(only(checkpoint, "DC120").message.find("moves the module itself to the CPU"),
            std::string::npos);
  const std::string export_each_epoch =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 2)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = Net()\n"
      "model.to(device)\n"
      "for epoch in range(10):\n"
      "    for x in batches:\n"
      "        out = model.forward(x.to(device))\n"
      "    model.to('cpu')\n"
      "    torch.onnx.export(model, torch.zeros(1, 4), 'net.onnx')\n";
  EXPECT_EQ(found(export_each_epoch, "DC120"), (Lines{"15 DC120"}));
  const std::string moved_back =
      "import torch\n"
      "import torch.nn as nn\n"
      "def train(data, steps, device):\n"
      "    net = nn.Linear(4, 4).to(device)\n"
      "    for step in range(steps):\n"
      "        loss = net(data.to(device)).sum()\n"
      "        torch.save(net.cpu().state_dict(), 'net.pt')\n"
      "        net.to(device)\n"
      "    for m in [net]:\n"
      "        m.cpu()\n"
      "    torch.save(net.cpu().state_dict(), 'last.pt')\n";
  EXPECT_EQ(found(moved_back, "DC120"), (Lines{}));
}

// A function no call of the file passes that moves one tensor it is given
// to the device itself is handed its inputs from the host: another it uses
// as a tensor and never moves meets the device there. Not where it moves
// that one too, reads where it is, moves the first to another input's
// device, the other may be a number, or a call of the file passes them.
TEST(LintDC120, FindsAnInputLeftBesideOneTheFunctionMoves) {
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn.functional as F\n"
                  "def evaluate(model, x, y, device):\n"
                  "    x = x.to(device)\n"
                  "    return F.cross_entropy(model(x), y)\n"
                  "class Scorer:\n"
                  "    def score(self, images, masks):\n"
                  "        images = images.cuda()\n"
                  "        return (images * masks).sum() / masks.sum()\n",
                  "DC120"),
            (Lines{"5 DC120", "9 DC120"}));
  EXPECT_NE(only("import torch\n"
                 "def evaluate(model, x, y, device):\n"
                 "    x = x.to(device)\n"
                 "    return torch.nn.functional.nll_loss(model(x), y)\n",
                 "DC120")
                .message.find("y is given to evaluate() beside a tensor it moves to a device"),
            std::string::npos);
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn.functional as F\n"
                  "def both(model, x, y, device):\n"
                  "    x, y = x.to(device), y.to(device)\n"
                  "    return F.cross_entropy(model(x), y)\n"
                  "def checked(x, y, device):\n"
                  "    x = x.to(device)\n"
                  "    return x + y.to(x.device)\n"
                  "def scaled(x, scale, device):\n"
                  "    return x.to(device) * scale\n"
                  "def qparams(lo, hi, eps):\n"
                  "    device = lo.device\n"
                  "    eps = eps.to(device)\n"
                  "    return torch.max((hi - lo).abs(), eps)\n"
                  "def passed(x, mask, device):\n"
                  "    x = x.to(device)\n"
                  "    return x * mask.float()\n"
                  "passed(torch.ones(2), torch.ones(2, device='cuda'), 'cuda')\n",
                  "DC120"),
            Lines{});
}

// Lightning's teardown moves the module back to the CPU when fit() (or
// validate, test, predict) ends: device inputs after it meet a CPU model.
TEST(LintDC120, FindsAModelUsedOnADeviceAfterLightningsFitEnded) {
  const std::string head =
      "import pytorch_lightning as pl\n"
      "import torch\n"
      "class Model(pl.LightningModule):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.layer = torch.nn.Linear(8, 3)\n"
      "    def forward(self, x):\n"
      "        return self.layer(x)\n";
  EXPECT_EQ(found(head + "def main(dm, x):\n"
                         "    model = Model()\n"
                         "    trainer = pl.Trainer(accelerator='gpu', devices=1)\n"
                         "    trainer.fit(model, datamodule=dm)\n"
                         "    return model(x.cuda())\n"
                         "def predict(model, dm, batch, device):\n"
                         "    trainer = pl.Trainer(accelerator='gpu')\n"
                         "    trainer.predict(model, dm)\n"
                         "    return model(batch.to(device))\n",
                  "DC120"),
            (Lines{"13 DC120", "17 DC120"}));
  EXPECT_NE(only(head + "def main(dm, x):\n"
                        "    model = Model()\n"
                        "    trainer = pl.Trainer(accelerator='gpu', devices=1)\n"
                        "    trainer.fit(model, datamodule=dm)\n"
                        "    return model(x.cuda())\n",
                 "DC120")
                .message.find("was moved back to the CPU when trainer.fit(...) ended (line 12)"),
            std::string::npos);
  EXPECT_EQ(found(head + "def main(dm, x):\n"
                         "    model = Model()\n"
                         "    trainer = pl.Trainer(accelerator='gpu', devices=1)\n"
                         "    trainer.fit(model, datamodule=dm)\n"
                         "    model.to('cuda')\n"
                         "    return model(x.cuda()), model(x)\n",
                  "DC120"),
            Lines{});
}

// A class with a base the file imports from elsewhere (diffusers'
// ModelMixin) may be an nn.Module: the layers it makes move with it. A plain
// class's layer, never moved, still reports.
TEST(LintDC120, SaysNothingOfALayerOfAClassWithAnImportedBase) {
  const std::string model =
      "import torch\n"
      "import torch.nn as nn\n"
      "from ..modeling_utils import ModelMixin\n"
      "class Decoder(ModelMixin):\n"
      "    def __init__(self):\n"
      "        self.embed = nn.Embedding(10, 4)\n"
      "    def forward(self, ids):\n"
      "        pos = torch.arange(ids.shape[1], device=ids.device)\n"
      "        return self.embed(pos)\n"
      "class Plain:\n"
      "    def __init__(self):\n"
      "        self.proj = nn.Linear(4, 4)\n"
      "    def run(self, x):\n"
      "        return self.proj(x)\n"
      "x = torch.ones(2, 4).cuda()\n"
      "Plain().run(x)\n";
  EXPECT_EQ(found(model, "DC120"), (Lines{"12 DC120"}));
  EXPECT_EQ(only(model, "DC120").message,
            "nn.Linear(...) makes a model on the CPU that is never moved to a device, and line 14 "
            "gives self.proj tensors on a device: a device mismatch; move it where it is made: "
            ".to(device)");
  const std::string transformer =
      "import torch\n"
      "from torch import nn\n"
      "from mylib.models import BaseModel\n"
      "class Net(BaseModel):\n"
      "    def __init__(self):\n"
      "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])\n"
      "    def forward(self, x):\n"
      "        h = torch.zeros(2, 4, device=x.device)\n"
      "        for layer in self.layers:\n"
      "            h = layer(h)\n"
      "        return h\n"
      "class Helper(object):\n"
      "    def __init__(self):\n"
      "        self.norm = nn.LayerNorm(4)\n"
      "    def apply(self, x):\n"
      "        return self.norm(x)\n"
      "x = torch.ones(2, 4, device='cuda')\n"
      "Helper().apply(x)\n";
  EXPECT_EQ(found(transformer, "DC120"), (Lines{"14 DC120"}));
}

// A cast to a legacy CPU type (`ids.type(torch.LongTensor)`, meant as a
// dtype) copies a tensor on a device to the host: found at the cast, where
// a module or a tensor on the device meets it after; not a cast to a CUDA
// type or to a dtype.
TEST(LintDC120, FindsACastToALegacyCpuTypeOfATensorOnADevice) {
  const std::string tagger =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Tagger(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.emb = nn.Embedding(8, 4)\n"
      "    def forward(self, ids):\n"
      "        ids = ids.type(torch.LongTensor)\n"
      "        return self.emb(ids)\n"
      "model = Tagger().to('cuda')\n";
  EXPECT_EQ(found(tagger, "DC120"), (Lines{"8 DC120"}));
  EXPECT_EQ(only(tagger, "DC120").message,
            "ids.type(torch.LongTensor) casts to a legacy CPU type, which copies the tensor to "
            "the host, and line 9 uses it with tensors on a device: a device mismatch; cast to "
            "the dtype alone (.long(), .to(torch.int64))");
  const std::string loss =
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def step(net, x, y, device):\n"
      "    out = net(x.to(device))\n"
      "    target = y.to(device).type('torch.LongTensor')\n"
      "    return F.cross_entropy(out, target)\n"
      "def main(data):\n"
      "    device = torch.device('cuda')\n"
      "    net = torch.nn.Linear(4, 3).to(device)\n"
      "    for x, y in data:\n"
      "        step(net, x, y, device)\n";
  EXPECT_EQ(found(loss, "DC120"), (Lines{"5 DC120"}));
  // Near misses: a CUDA type, a dtype.
  for (const char* cast : {"type(torch.cuda.LongTensor)", "type(torch.long)", "long()"}) {
    std::string fixed = tagger;
    fixed.replace(fixed.find("type(torch.LongTensor)"), 22, cast);
    EXPECT_EQ(found(fixed, "DC120"), Lines{}) << cast;
  }
}

// A tokenizer's output made in the function where it meets a device and
// never moved there, whole or an entry of it, is found where it is made:
// the fix is `tokenizer(...).to(device)` there.
TEST(LintDC120, FindsATokenizersOutputNeverMovedWhereItIsMade) {
  const std::string answer =
      "import torch\n"
      "from transformers import BartForConditionalGeneration, BartTokenizer\n"
      "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
      "tok = BartTokenizer.from_pretrained('facebook/bart-base')\n"
      "gen = BartForConditionalGeneration.from_pretrained('facebook/bart-base').to(device)\n"
      "def reply(question):\n"
      "    enc = tok([question], max_length=512, return_tensors='pt')\n"
      "    ids = gen.generate(enc['input_ids'], num_beams=2)\n"
      "    return tok.batch_decode(ids)[0]\n";
  EXPECT_EQ(found(answer, "DC120"), (Lines{"7 DC120"}));
  EXPECT_EQ(only(answer, "DC120").message,
            "enc is a tokenizer's output, on the CPU, never moved, and line 8 gives "
            "enc['input_ids'] to tensors on a device: a device mismatch; move it where it is "
            "made (tokenizer(...).to(device))");
  const std::string classify =
      "import torch\n"
      "from transformers import AutoModelForSequenceClassification, AutoTokenizer\n"
      "def classify(texts):\n"
      "    model = AutoModelForSequenceClassification.from_pretrained('m').cuda()\n"
      "    tokenizer = AutoTokenizer.from_pretrained('m')\n"
      "    batch = tokenizer(texts, padding=True, return_tensors='pt')\n"
      "    logits = model(batch['input_ids'], attention_mask=batch['attention_mask']).logits\n"
      "    return logits.argmax(-1)\n";
  EXPECT_EQ(found(classify, "DC120"), (Lines{"6 DC120"}));
  // Near miss: moved where it is made.
  std::string fixed = answer;
  fixed.replace(fixed.find("return_tensors='pt')"), 20, "return_tensors='pt').to(device)");
  EXPECT_EQ(found(fixed, "DC120"), Lines{});
}

// A method called on an instance of a plain class of the file is that
// class's, where two classes have one of the name: a strategy that hands
// the model back as it is leaves it on the CPU; one that moves it, not.
TEST(LintDC120, FollowsAMethodOfTheInstancesOwnClass) {
  const std::string runner =
      "import torch\n"
      "import torch.nn as nn\n"
      "class KeepStrategy:\n"
      "    def place(self, model):\n"
      "        return model\n"
      "class MoveStrategy:\n"
      "    def place(self, model):\n"
      "        return model.cuda()\n"
      "class Runner:\n"
      "    def __init__(self, model, strategy):\n"
      "        self.model = model\n"
      "        self.strategy = strategy\n"
      "    def run(self, batches):\n"
      "        self.model = self.strategy.place(self.model)\n"
      "        for x in batches:\n"
      "            print(self.model(x.to('cuda')))\n";
  const std::string keep = runner + "Runner(nn.Linear(4, 2), KeepStrategy()).run([])\n";
  EXPECT_EQ(found(keep, "DC120"), (Lines{"16 DC120"}));
  EXPECT_EQ(only(keep, "DC120").message,
            "self.model is a model nn.Linear(...) made (line 17) on the CPU and never moved to a "
            "device; passed here, it is given tensors on a device: a device mismatch; move it "
            "where it is made (.to(device)) or here");
  EXPECT_EQ(found(runner + "Runner(nn.Linear(4, 2), MoveStrategy()).run([])\n", "DC120"), Lines{});
}

// A DataLoader over a TensorDataset of the caller's tensors (pyro's CEVAE:
// `TensorDataset(x, t, y)` of fit's parameters): its batches are where those
// tensors are, not known to be on the host. Over tensors known on the host
// (`from_numpy`), a batch that meets the device unmoved is still found.
TEST(LintDC120, ABatchOfATensorDatasetOfTheCallersTensorsIsWhereTheyAre) {
  const std::string fit =
      "import torch\n"
      "from torch.utils.data import DataLoader, TensorDataset\n"
      "def fit(x, t, y, batch_size=100):\n"
      "    dataset = TensorDataset(x, t, y)\n"
      "    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True)\n"
      "    w = torch.ones(3, device=\"cuda\")\n"
      "    for x, t, y in dataloader:\n"
      "        loss = x @ w\n"
      "def near(X, Y):\n"
      "    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), "
      "batch_size=8)\n"
      "    w = torch.ones(3, device=\"cuda\")\n"
      "    for x, y in loader:\n"
      "        out = x @ w\n";
  EXPECT_EQ(found(fit, "DC120"), (Lines{"13 DC120"}));
  EXPECT_EQ(only(fit, "DC120").message,
            "x is a batch of a DataLoader (line 12), on the CPU, and meets tensors on a device "
            "here unmoved: a device mismatch; move it to the device first (.to(device))");
  const std::string train =
      "import numpy as np\n"
      "import torch\n"
      "from torch.utils.data import DataLoader, TensorDataset\n"
      "def train(model, features, labels, device):\n"
      "    model.to(device)\n"
      "    for epoch in range(3):\n"
      "        for xb, yb in DataLoader(TensorDataset(features, labels), batch_size=32):\n"
      "            loss = model(xb)\n"
      "def near(model, device):\n"
      "    model.to(device)\n"
      "    data = TensorDataset(torch.from_numpy(np.ones((4, 2))), torch.zeros(4))\n"
      "    for xb, yb in DataLoader(data, batch_size=32):\n"
      "        loss = model(xb)\n";
  EXPECT_EQ(found(train, "DC120"), (Lines{"13 DC120"}));
}

// A class whose base from elsewhere comes through classes of the file
// (lerobot's MolmoAct2TextModel(MolmoAct2PreTrainedModel), a
// PreTrainedModel) may be an nn.Module: what its __init__ keeps in
// `self.x` may be a submodule that moves with it. A chain that ends in
// `object` or the standard library's `abc.ABC` is a plain class: its layer
// stays on the host.
TEST(LintDC120, SaysNothingOfALayerKeptByAClassWhoseBaseFromElsewhereIsInherited) {
  const std::string text =
      "import torch\n"
      "import torch.nn as nn\n"
      "from transformers import PreTrainedModel\n"
      "\n"
      "\n"
      "class Norm(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.weight = nn.Parameter(torch.ones(n))\n"
      "\n"
      "    def forward(self, x):\n"
      "        return x * self.weight\n"
      "\n"
      "\n"
      "class Base(PreTrainedModel):\n"
      "    config_class = None\n"
      "\n"
      "\n"
      "class TextModel(Base):\n"
      "    def __init__(self, config):\n"
      "        super().__init__(config)\n"
      "        self.ln_f = Norm(8)\n"
      "\n"
      "    def forward(self, h):\n"
      "        h = h.to(\"cuda\")\n"
      "        return self.ln_f(h)\n"
      "\n"
      "\n"
      "class Plain(object):\n"
      "    pass\n"
      "\n"
      "\n"
      "class Scorer(Plain):\n"
      "    def __init__(self):\n"
      "        self.norm = Norm(8)\n"
      "\n"
      "    def score(self, h):\n"
      "        return self.norm(h.cuda())\n";
  EXPECT_EQ(found(text, "DC120"), (Lines{"35 DC120"}));
  EXPECT_NE(only(text, "DC120").message.find("Norm(...) makes a model on the CPU"),
            std::string::npos);
  const std::string head =
      "import abc\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "import diffusers\n"
      "\n"
      "\n"
      "class Mixin(diffusers.ModelMixin):\n"
      "    pass\n"
      "\n"
      "\n"
      "class Middle(Mixin):\n"
      "    pass\n"
      "\n"
      "\n"
      "class Head(Middle):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])\n"
      "\n"
      "    def run(self, x):\n"
      "        x = x.cuda()\n"
      "        for layer in self.layers:\n"
      "            x = layer(x)\n"
      "        return x\n"
      "\n"
      "\n"
      "class Probe(abc.ABC):\n"
      "    def __init__(self):\n"
      "        self.layer = nn.Linear(4, 4)\n"
      "\n"
      "    def run(self, x):\n"
      "        return self.layer(x.cuda())\n";
  EXPECT_EQ(found(head, "DC120"), (Lines{"29 DC120"}));
  EXPECT_NE(only(head, "DC120").message.find("line 32 gives self.layer tensors on a device"),
            std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
