#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC114, FindsItemOnEveryStepOfATrainingLoop) {
  const std::string source =
      "model.to(device)\n"
      "for step, (x, y) in enumerate(loader):\n"
      "    loss = loss_fn(model(x), y)\n"
      "    loss.backward()\n"
      "    total += loss.item()\n"
      "    if step % 100 == 0:\n"
      "        print(loss.item())\n"
      "for v in values:\n"
      "    print(v.item())\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"5 DC114"}));
  EXPECT_NE(only(source, "DC114").message.find("accumulate on the device"), std::string::npos);
}

TEST(LintDC114, SaysNothingInAFileThatPutsNothingOnADevice) {
  // pytorch/examples' regression: a CPU-only loop reads .item() to stop.
  const std::string loop =
      "for step, (x, y) in enumerate(loader):\n"
      "    loss = loss_fn(model(x), y)\n"
      "    loss.backward()\n"
      "    total += loss.item()\n";
  EXPECT_EQ(found(loop, "DC114"), Lines{});
  EXPECT_EQ(found("x = x.cuda()\n" + loop, "DC114"), (Lines{"5 DC114"}));
  EXPECT_EQ(found("import torch\nd = torch.device('cuda')\n" + loop, "DC114"), (Lines{"6 DC114"}));
  EXPECT_EQ(found("def f(x):\n    return torch.zeros(1, device='cuda')\n" + loop, "DC114"),
            (Lines{"6 DC114"}));
  // pytorch/examples' FSDP train_utils: moved to the rank's GPU by index.
  EXPECT_EQ(found("b = b.to(local_rank)\n" + loop, "DC114"), (Lines{"5 DC114"}));
  EXPECT_EQ(found("b = b.to(torch.float16)\n" + loop, "DC114"), Lines{});
}

// torch's distributed_test (join mode disabled): a test checks the gradient
// on every step; an assertion raises when it fails, as a stop on a
// non-finite loss does. The same read beside the assertion, or given to a
// logger, is still reported.
TEST(LintDC114, SaysNothingForAReadAnAssertionChecks) {
  const std::string source =
      "net = DDP(model.cuda(rank), device_ids=[rank])\n"
      "for _ in range(n_iters):\n"
      "    loss = net(inp).sum()\n"
      "    loss.backward()\n"
      "    self.assertEqual(net.module.weight.grad.item(), expected_grad)\n"
      "    assert loss.item() < 10\n"
      "    torch.testing.assert_close(loss.item(), 1.0)\n"
      "    log(assertion=loss.item())\n"
      "    g = net.module.weight.grad.item()\n"
      "    self.assertEqual(g, expected_grad)\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"8 DC114", "9 DC114"}));
}

// Once per epoch, after the loop over the batches, is not every step.
TEST(LintDC114, SaysNothingForItemOncePerEpoch) {
  const std::string source =
      "for epoch in range(10):\n"
      "    total = 0.0\n"
      "    for x, y in loader:\n"
      "        x, y = x.to(device), y.to(device)\n"
      "        loss = loss_fn(model(x), y)\n"
      "        loss.backward()\n"
      "        total += loss.detach()\n"
      "    print(total.item())\n"
      "    for x, y in loader:\n"
      "        loss = loss_fn(model(x.to(device)), y.to(device))\n"
      "        loss.backward()\n"
      "        print(loss.item())\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"12 DC114"}));
}

// torchaudio's InverseMelScale: the value read decides whether to stop, so
// it is needed on every step; so does torchvision's detection engine, which
// exits on a non-finite loss. A read that only logs is still reported.
TEST(LintDC114, SaysNothingWhenTheValueReadStopsTheLoop) {
  const std::string source =
      "def invert(mel, n, max_iter, tol):\n"
      "    spec = torch.rand(n, device=mel.device)\n"
      "    for _ in range(max_iter):\n"
      "        loss = (mel - spec).pow(2).mean()\n"
      "        loss.backward()\n"
      "        new_loss = loss.item()\n"
      "        if abs(old - new_loss) < tol:\n"
      "            break\n"
      "        old = new_loss\n"
      "    while True:\n"
      "        loss = step(spec)\n"
      "        loss.backward()\n"
      "        if loss.item() < tol:\n"
      "            return spec\n"
      "    while loss.item() > tol:\n"
      "        loss = step(spec)\n"
      "        loss.backward()\n"
      "    for x in loader:\n"
      "        loss = step(x)\n"
      "        loss.backward()\n"
      "        value = loss.item()\n"
      "        for h in hooks:\n"
      "            if h(value):\n"
      "                break\n"
      "        if value > 1e6:\n"
      "            print(value)\n"
      "    for x in loader:\n"
      "        loss = step(x)\n"
      "        loss.backward()\n"
      "        loss_value = loss.item()\n"
      "        if not math.isfinite(loss_value):\n"
      "            sys.exit(1)\n"
      "        if torch.isnan(loss).item():\n"
      "            raise RuntimeError('nan')\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"21 DC114"}));
}

// A test's loop (a function named test_* or _test*, a method of a Test*
// class) runs a few steps to check values, not to train fast; the same loop
// in a training function is found.
TEST(LintDC114, SaysNothingInTestCode) {
  const std::string source =
      "import torch\n"
      "def test_only_train_fn(model, data, device='cuda'):\n"
      "    model.to(device)\n"
      "    for x, y in data:\n"
      "        loss = model(x).sum()\n"
      "        loss.backward()\n"
      "        total = loss.item()\n"
      "def _test_model(model, steps):\n"
      "    for _ in range(steps):\n"
      "        loss = model(torch.ones(2, device='cuda')).sum()\n"
      "        loss.backward()\n"
      "        print(loss.item())\n"
      "class TestOptim:\n"
      "    def run(self, model):\n"
      "        for _ in range(3):\n"
      "            loss = model(torch.ones(2, device='cuda')).sum()\n"
      "            loss.backward()\n"
      "            print(loss.item())\n"
      "def train(model, data, device='cuda'):\n"
      "    model.to(device)\n"
      "    for x, y in data:\n"
      "        loss = model(x).sum()\n"
      "        loss.backward()\n"
      "        total = loss.item()\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"24 DC114"}));
}

// A loop of a few steps fixed in the code (`range(1, STEPS + 1)` with
// STEPS = 20, at most 100): peft's overfit test script, run as `main`, and a
// toy's full-batch loop; a handful of waits. A loop whose count comes from
// the arguments, or is larger, is found.
TEST(LintDC114, SaysNothingInALoopOfAFewStepsFixedInTheCode) {
  const std::string source =
      "import torch\n"
      "STEPS = 20\n"
      "def main(model_id):\n"
      "    device = torch.device('cuda', 0)\n"
      "    model = load(model_id).to(device)\n"
      "    for step in range(1, STEPS + 1):\n"
      "        loss = model(**batch).loss\n"
      "        loss.backward()\n"
      "        final_loss = loss.item()\n"
      "def toy(x, y):\n"
      "    net = Net().to('cuda')\n"
      "    for epoch in range(50):\n"
      "        loss = ((net(x) - y) ** 2).mean()\n"
      "        loss.backward()\n"
      "        print(epoch, loss.item())\n"
      "def train(args, net):\n"
      "    net.to(device)\n"
      "    for it in range(args.max_iters):\n"
      "        loss = net(get_batch()).mean()\n"
      "        loss.backward()\n"
      "        print(loss.item())\n"
      "    for it in range(STEPS * 50):\n"
      "        loss = net(get_batch()).mean()\n"
      "        loss.backward()\n"
      "        print(loss.item())\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"21 DC114", "25 DC114"}));
  EXPECT_EQ(only(source.substr(0, source.find("    for it in range(STEPS")), "DC114").message,
            ".item() on every step of a training loop waits for the device each time; "
            "accumulate on the device (total += loss.detach()) and read it once per epoch or "
            "under a logging condition");
}

const char kEveryStepMessage[] =
    ".item() on every step of a training loop waits for the device each time; accumulate on "
    "the device (total += loss.detach()) and read it once per epoch or under a logging "
    "condition";

// seed 49: a helper that only test code calls (a test case's
// `train_and_infer`, called by `test_training`, runs `run_training_test`) is
// test code too; a helper the program's own entry also calls is not.
TEST(LintDC114, SaysNothingInAHelperOnlyTestsCall) {
  const std::string chain =
      "import torch\n"
      "def run_training_test(model, loader, device='cuda:0'):\n"
      "    model.to(device)\n"
      "    losses = []\n"
      "    for x, y in loader:\n"
      "        loss = model(x.to(device)).sum()\n"
      "        loss.backward()\n"
      "        losses.append(loss.item())\n"
      "    return losses\n"
      "class IntegrationSegmentation:\n"
      "    def train_and_infer(self):\n"
      "        return run_training_test(self.model, self.loader)\n"
      "    def test_training(self):\n"
      "        self.assertEqual(len(self.train_and_infer()), 6)\n";
  EXPECT_EQ(found(chain, "DC114"), Lines{});
  const std::string method =
      "import torch\n"
      "class CheckFit:\n"
      "    def _fit(self, model, data):\n"
      "        model.cuda()\n"
      "        out = []\n"
      "        for x in data:\n"
      "            loss = model(x.cuda()).sum()\n"
      "            loss.backward()\n"
      "            out.append(loss.item())\n"
      "        return out\n"
      "    def test_fit(self):\n"
      "        assert self._fit(self.model, self.data)[-1] < 1\n";
  EXPECT_EQ(found(method, "DC114"), Lines{});
  const std::string also_main =
      "import torch\n"
      "def run_training(model, loader, device='cuda:0'):\n"
      "    model.to(device)\n"
      "    for x, y in loader:\n"
      "        loss = model(x.to(device)).sum()\n"
      "        loss.backward()\n"
      "        print(loss.item())\n"
      "def test_training():\n"
      "    run_training(model, loader)\n"
      "if __name__ == '__main__':\n"
      "    run_training(model, loader)\n";
  EXPECT_EQ(found(also_main, "DC114"), (Lines{"7 DC114"}));
  EXPECT_EQ(only(also_main, "DC114").message, kEveryStepMessage);
}

// seed 49: a read summed into what the function returns, which a loop of the
// file that calls it tests to stop (an LR finder's divergence test), is
// needed on the host every step; returned to a loop that only records it,
// it is found.
TEST(LintDC114, SaysNothingWhenTheReturnedValueStopsTheCallersLoop) {
  const std::string finder =
      "import torch\n"
      "class LRFinder:\n"
      "    def _train_batch(self, it, steps):\n"
      "        total_loss = 0\n"
      "        for i in range(steps):\n"
      "            x, y = next(it)\n"
      "            loss = self.criterion(self.model(x.to(self.device)), y.to(self.device))\n"
      "            loss.backward()\n"
      "            total_loss += loss.item()\n"
      "        self.optimizer.step()\n"
      "        return total_loss\n"
      "    def range_test(self, it, num_iter, steps):\n"
      "        best = None\n"
      "        for iteration in range(num_iter):\n"
      "            loss = self._train_batch(it, steps)\n"
      "            if best is not None and loss > 5 * best:\n"
      "                break\n"
      "            best = loss if best is None else min(best, loss)\n";
  EXPECT_EQ(found(finder, "DC114"), Lines{});
  const std::string plain =
      "import math\n"
      "import torch\n"
      "def epoch(model, loader, device):\n"
      "    running = 0.0\n"
      "    for x in loader:\n"
      "        loss = model(x.to(device)).sum()\n"
      "        loss.backward()\n"
      "        running = running + loss.item()\n"
      "    return running\n"
      "def fit(model, loader, device, epochs):\n"
      "    while True:\n"
      "        value = epoch(model, loader, device)\n"
      "        if not math.isfinite(value):\n"
      "            raise RuntimeError('diverged')\n";
  EXPECT_EQ(found(plain, "DC114"), Lines{});
  const std::string recorded =
      "import torch\n"
      "def epoch(model, loader, device):\n"
      "    running = 0.0\n"
      "    for x in loader:\n"
      "        loss = model(x.to(device)).sum()\n"
      "        loss.backward()\n"
      "        running += loss.item()\n"
      "    return running\n"
      "def fit(model, loader, device, epochs):\n"
      "    history = []\n"
      "    for e in range(epochs):\n"
      "        history.append(epoch(model, loader, device))\n"
      "    return history\n";
  EXPECT_EQ(found(recorded, "DC114"), (Lines{"7 DC114"}));
  EXPECT_EQ(only(recorded, "DC114").message, kEveryStepMessage);
}

// A read of a tensor that an `if` earlier in the step already tests to
// leave the loop (`if torch.isnan(loss): raise ...`, allennlp's trainer),
// with no backward() or step() between them: the test copied it to the host
// this step, so the read adds no wait. Not a test under a condition of its
// own (`if step % 10 == 0:`) nor one of whether the name is set (`if loss is
// None:`), nor a read after backward() and step() (it waits for them).
TEST(LintDC114, SkipsAReadOfATensorTheStepAlreadyTestsToStop) {
  EXPECT_EQ(found("import torch\n"
                  "def train(model, loader, optimizer, device):\n"
                  "    model.to(device)\n"
                  "    total = 0.0\n"
                  "    for batch in loader:\n"
                  "        with torch.autocast(\"cuda\"):\n"
                  "            loss = model(batch.to(device))\n"
                  "            if torch.isnan(loss):\n"
                  "                raise ValueError(\"nan loss encountered\")\n"
                  "            loss = loss / 2\n"
                  "            total += loss.item()\n"
                  "        loss.backward()\n"
                  "        optimizer.step()\n",
                  "DC114"),
            Lines{});
  const std::string fit =
      "import torch\n"
      "def fit(net, data, opt):\n"
      "    net.cuda()\n"
      "    for x, y in data:\n"
      "        loss = torch.nn.functional.mse_loss(net(x.cuda()), y.cuda())\n"
      "        if not torch.isfinite(loss):\n"
      "            break\n"
      "        print(loss.item())\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "def near(net, data, opt):\n"
      "    net.cuda()\n"
      "    for step, (x, y) in enumerate(data):\n"
      "        loss = torch.nn.functional.mse_loss(net(x.cuda()), y.cuda())\n"
      "        if step % 10 == 0:\n"
      "            if not torch.isfinite(loss):\n"
      "                break\n"
      "        if loss is None:\n"
      "            raise ValueError(\"no loss\")\n"
      "        print(loss.item())\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "def after_step(net, data, opt):\n"
      "    net.cuda()\n"
      "    for x, y in data:\n"
      "        loss = torch.nn.functional.mse_loss(net(x.cuda()), y.cuda())\n"
      "        if not torch.isfinite(loss):\n"
      "            raise ValueError(\"non-finite loss encountered\")\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "        print(loss.item())\n";
  EXPECT_EQ(found(fit, "DC114"), (Lines{"20 DC114", "31 DC114"}));
  const std::vector<Finding> all = lint_source(fit, "t.py", [] {
    LintOptions o;
    o.select = {"DC114"};
    return o;
  }());
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[1].message,
            ".item() on every step of a training loop waits for the device each time; "
            "accumulate on the device (total += loss.detach()) and read it once per epoch or "
            "under a logging condition");
}

// A test of a tensor's type or metadata (`isinstance(loss, torch.Tensor)`,
// `loss.dim() != 0`) reads no value, so it waits for nothing; and a stop test
// of the last step's loss waits for that tensor, not for the one the name is
// set to after it. Both reads are found (review of f035f9b).
TEST(LintDC114, FindsAReadAfterATestOfMetadataOrOfAnEarlierTensor) {
  const std::string source =
      "import torch\n"
      "def typed(model, loader, opt):\n"
      "    model.cuda()\n"
      "    total = 0.0\n"
      "    for x in loader:\n"
      "        loss = model(x.cuda()).sum()\n"
      "        if not isinstance(loss, torch.Tensor) or loss.dim() != 0:\n"
      "            raise TypeError('loss')\n"
      "        total += loss.item()\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "def earlier(model, loader, opt):\n"
      "    model.cuda()\n"
      "    loss = torch.zeros(1).cuda()\n"
      "    for x in loader:\n"
      "        if torch.isnan(loss):\n"
      "            break\n"
      "        loss = model(x.cuda()).sum()\n"
      "        print(loss.item())\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "def waited(model, loader, opt):\n"
      "    model.cuda()\n"
      "    for x in loader:\n"
      "        loss = model(x.cuda()).sum()\n"
      "        if torch.isnan(loss) or loss.dim() != 0:\n"
      "            break\n"
      "        print(loss.item())\n"
      "        loss.backward()\n"
      "        opt.step()\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"9 DC114", "19 DC114"}));
}

}  // namespace
}  // namespace devcheck::lint
