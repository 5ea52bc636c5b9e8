// What frameworks place (src/lint/flow/frameworks.cc): launchers, ignite's
// engines, Hugging Face trainers and device_map.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowFrameworks, ALauncherReturnsWhatItIsGivenOnItsDevice) {
  // Accelerate, one model and several values (a tuple).
  const Flowed accelerate(
      "import torch\n"
      "from accelerate import Accelerator\n"
      "def train(model, optimizer, loader):\n"
      "    accelerator = Accelerator()\n"
      "    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)\n"
      "    for batch in loader:\n"
      "        out = model(batch['x'])\n"
      "        w = torch.tensor([1.0, 4.0])\n"
      "        loss = (out * w).sum()\n");
  EXPECT_EQ(meetings(accelerate), (Lines{"9 factory@8 meets device"}));
  // Lightning Fabric, the module alone, given to the function; an accelerator
  // a class keeps.
  const Flowed fabric(
      "import lightning as L\n"
      "import torch\n"
      "def fit(fabric, model):\n"
      "    model = fabric.setup_module(model)\n"
      "    return model(torch.ones(3))\n"
      "class Loop:\n"
      "    def __init__(self, model):\n"
      "        self.fabric = L.Fabric(accelerator='cuda')\n"
      "        self.model = self.fabric.setup(model)\n"
      "    def step(self):\n"
      "        return self.model(torch.zeros(2, 3))\n");
  EXPECT_EQ(meetings(fabric), (Lines{"11 factory@11 meets device", "5 factory@5 meets device"}));
}

TEST(LintFlowFrameworks, ALauncherMovesTheModulesItIsGivenInPlace) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "from accelerate import Accelerator\n"
      "def train():\n"
      "    model = nn.Linear(3, 1)\n"
      "    accelerator = Accelerator()\n"
      "    accelerator.prepare(model)\n"
      "    return model(torch.ones(3))\n");
  EXPECT_EQ(meetings(f), (Lines{"8 factory@8 meets device"}));
}

TEST(LintFlowFrameworks, NoLauncherWhereItStaysOnTheHostOrIsNone) {
  const Flowed f(
      "import lightning as L\n"
      "import torch\n"
      "from accelerate import Accelerator\n"
      "def on_cpu(model):\n"
      "    fabric = L.Fabric(accelerator='cpu')\n"
      "    model = fabric.setup(model)\n"
      "    return model(torch.ones(3))\n"
      "def unplaced(model):\n"
      "    accelerator = Accelerator(device_placement=False)\n"
      "    model = accelerator.prepare(model)\n"
      "    return model(torch.ones(3))\n"
      "def not_a_launcher(model, data):\n"
      "    model = data.prepare(model)\n"
      "    data.setup('fit')\n"
      "    return model(torch.ones(3))\n"
      "def placed(model):\n"
      "    accelerator = Accelerator()\n"
      "    model = accelerator.prepare(model)\n"
      "    return model(torch.ones(3, device=accelerator.device))\n");
  EXPECT_EQ(meetings(f), Lines{});
}

TEST(LintFlowFrameworks, IgniteEnginesMoveTheBatchesNotTheModel) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "from ignite.engine import create_supervised_evaluator, create_supervised_trainer\n"
      "def run(loader):\n"
      "    model = nn.Linear(10, 2)\n"
      "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
      "    trainer = create_supervised_trainer(model, optimizer, nn.MSELoss(), device='cuda')\n"
      "    trainer.run(loader)\n"
      "def evaluate(loader, device):\n"
      "    net = nn.Linear(10, 2)\n"
      "    create_supervised_evaluator(model=net, metrics={}, device=device).run(loader)\n"
      "def moved(loader):\n"
      "    model = nn.Linear(10, 2).cuda()\n"
      "    create_supervised_evaluator(model, metrics={}, device='cuda').run(loader)\n"
      "def on_cpu(loader):\n"
      "    model = nn.Linear(10, 2)\n"
      "    create_supervised_evaluator(model, metrics={}).run(loader)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 unmoved@5 meets device", "11 unmoved@10 meets device"}));
}

TEST(LintFlowFrameworks, AHuggingFaceTrainerMovesItsModelInPlace) {
  const Flowed f(
      "from transformers import AutoModel, AutoTokenizer, Trainer, TrainingArguments\n"
      "class MyTrainer(Trainer):\n"
      "    pass\n"
      "def main(data):\n"
      "    tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')\n"
      "    model = AutoModel.from_pretrained('bert-base-uncased')\n"
      "    Trainer(model=model, args=TrainingArguments('out'), train_dataset=data).train()\n"
      "    return model(**tokenizer('a b', return_tensors='pt'))\n"
      "def sub(data):\n"
      "    tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')\n"
      "    model = AutoModel.from_pretrained('bert-base-uncased')\n"
      "    MyTrainer(model, TrainingArguments('out'), train_dataset=data).train()\n"
      "    inputs = tokenizer('a b', return_tensors='pt')\n"
      "    return model(**inputs), model(**inputs.to(model.device))\n");
  EXPECT_EQ(meetings(f), (Lines{"8 batch@8 meets device", "14 batch@13 meets device"}));
  // A file that keeps the Trainer on the CPU.
  const Flowed cpu(
      "from transformers import AutoModel, AutoTokenizer, Trainer, TrainingArguments\n"
      "def main(data):\n"
      "    tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')\n"
      "    model = AutoModel.from_pretrained('bert-base-uncased')\n"
      "    Trainer(model=model, args=TrainingArguments('out', use_cpu=True)).train()\n"
      "    return model(**tokenizer('a b', return_tensors='pt'))\n");
  EXPECT_EQ(meetings(cpu), Lines{});
}

TEST(LintFlowFrameworks, AModelLoadedWithADevicesDeviceMapIsOnThatDevice) {
  const Flowed f(
      "from transformers import AutoModelForCausalLM, AutoTokenizer\n"
      "tokenizer = AutoTokenizer.from_pretrained('gpt2')\n"
      "def answer(prompt):\n"
      "    model = AutoModelForCausalLM.from_pretrained('gpt2', device_map='auto')\n"
      "    return model.generate(**tokenizer(prompt, return_tensors='pt'))\n"
      "def quantized(prompt):\n"
      "    model = AutoModelForCausalLM.from_pretrained('gpt2', load_in_8bit=True)\n"
      "    inputs = tokenizer(prompt, return_tensors='pt')\n"
      "    return model(**inputs)\n"
      "def on_cpu(prompt):\n"
      "    model = AutoModelForCausalLM.from_pretrained('gpt2', device_map='cpu')\n"
      "    return model.generate(**tokenizer(prompt, return_tensors='pt'))\n");
  EXPECT_EQ(meetings(f), (Lines{"5 batch@5 meets device", "9 batch@8 meets device"}));
}

TEST(LintFlowFrameworks, AFrameworkThatPlacesModulesMovesTheFilesModules) {
  EXPECT_TRUE(Flowed("import lightning as L\n"
                     "class M(L.LightningModule):\n"
                     "    pass\n")
                  .flow.moves_a_module());
  EXPECT_TRUE(Flowed("from accelerate import Accelerator\n"
                     "def f(model):\n"
                     "    return Accelerator().prepare(model)\n")
                  .flow.moves_a_module());
  EXPECT_TRUE(Flowed("from transformers import Trainer\n"
                     "def f(model):\n"
                     "    return Trainer(model=model)\n")
                  .flow.moves_a_module());
  // ignite's engines move the batches only; a plain module moves nowhere.
  EXPECT_FALSE(Flowed("from ignite.engine import create_supervised_evaluator\n"
                      "def f(model):\n"
                      "    return create_supervised_evaluator(model, device='cuda')\n")
                   .flow.moves_a_module());
  EXPECT_FALSE(Flowed("import torch\n"
                      "class M(torch.nn.Module):\n"
                      "    pass\n")
                   .flow.moves_a_module());
}

TEST(LintFlowFrameworks, TheEpochsEndIsHandedWhatALightningModulesStepsReturned) {
  const Flowed f(
      "import lightning.pytorch as pl\n"
      "import torch\n"
      "class M(pl.LightningModule):\n"
      "    def validation_epoch_end(self, outputs):\n"
      "        return torch.stack([o['loss'] for o in outputs]) + torch.ones(3)\n"
      "class Plain:\n"
      "    def validation_epoch_end(self, outputs):\n"
      "        return torch.stack([o['loss'] for o in outputs]) + torch.ones(3)\n");
  EXPECT_EQ(meetings(f), (Lines{"5 factory@5 meets module"}));
}

TEST(LintFlowFrameworks, CompiledScriptedAndUnwrappedModelsStayWhereTheModelIs) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "from accelerate import Accelerator\n"
      "def compiled():\n"
      "    model = torch.compile(nn.Linear(3, 3).cuda())\n"
      "    return model(torch.ones(3))\n"
      "def scripted(x):\n"
      "    model = torch.jit.script(nn.Linear(3, 3))\n"
      "    return model(x.cuda())\n"
      "def unwrapped(model, accelerator):\n"
      "    model = accelerator.prepare(model)\n"
      "    inner = accelerator.unwrap_model(model)\n"
      "    return inner(torch.ones(3))\n");
  EXPECT_EQ(meetings(f), (Lines{"6 factory@6 meets device", "9 unmoved@8 meets device",
                                "13 factory@13 meets device"}));
}

TEST(LintFlowFrameworks, LightningsFitMovesTheModelBackToTheHost) {
  const Flowed f(
      "import lightning as L\n"
      "import torch\n"
      "def after_fit(model, dm):\n"
      "    trainer = L.Trainer(accelerator='gpu')\n"
      "    trainer.fit(model=model, datamodule=dm)\n"
      "    return model(torch.ones(3, device='cuda'))\n"
      "def after_test(dm, x):\n"
      "    model = torch.nn.Linear(3, 3).cuda()\n"
      "    trainer = L.Trainer()\n"
      "    trainer.test(model, dm)\n"
      "    return model(x.cuda())\n"
      "def moved_again(dm, x):\n"
      "    model = torch.nn.Linear(3, 3).cuda()\n"
      "    trainer = L.Trainer()\n"
      "    trainer.fit(model, dm)\n"
      "    model.cuda()\n"
      "    return model(x.cuda())\n");
  EXPECT_EQ(meetings(f), (Lines{"6 released@5 meets device", "11 released@10 meets device"}));
}

// fairseq's `utils.move_to_cuda`, Accelerate's `send_to_device` and
// Lightning's `move_data_to_device` move every tensor of what they are given
// to the device: chosen by a flag (`x = utils.move_to_cuda(x) if use_cuda
// else x`, fairseq's vocoder scripts, seed 53), the place is unknown; moved
// under `if use_cuda:` alone, on the device. Moved to "cpu", or not moved,
// the host tensor meets the device.
TEST(LintFlowFrameworks, AFrameworksContainerMoveIsWhereItMoves) {
  const Flowed fairseq(
      "import torch\n"
      "from fairseq import utils\n"
      "def synth(vocoder, code, use_cuda):\n"
      "    vocoder = vocoder.cuda()\n"
      "    x = {'code': torch.LongTensor(code).view(1, -1)}\n"
      "    x = utils.move_to_cuda(x) if use_cuda else x\n"
      "    y = {'code': torch.LongTensor(code).view(1, -1)}\n"
      "    if use_cuda:\n"
      "        y = utils.move_to_cuda(y)\n"
      "    z = torch.LongTensor(code)\n"
      "    return vocoder(x), vocoder(y), vocoder(z)\n");
  EXPECT_EQ(meetings(fairseq), (Lines{"11 factory@10 meets device"}));
  const Flowed accelerate(
      "import torch\n"
      "from accelerate.utils import send_to_device\n"
      "def step(model, device):\n"
      "    model = model.to(device)\n"
      "    batch = send_to_device(torch.zeros(2, 3), device)\n"
      "    back = send_to_device(torch.ones(2, 3), 'cpu')\n"
      "    return model(batch), model(back)\n");
  EXPECT_EQ(meetings(accelerate), (Lines{}));
  const Flowed lightning(
      "import torch\n"
      "from lightning.fabric.utilities import move_data_to_device\n"
      "def step(model, n):\n"
      "    model = model.cuda()\n"
      "    b = move_data_to_device([torch.zeros(n), torch.ones(n)], 'cuda')\n"
      "    return model(b[0]) + model(torch.rand(n))\n");
  EXPECT_EQ(meetings(lightning), (Lines{"6 factory@6 meets device"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
