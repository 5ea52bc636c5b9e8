// The Fashion-MNIST classifier end to end: a short run learns, a checkpoint resumes
// and real Python torch.load reads it.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/optim/adam.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include <sched.h>

#include "checkpoint/fixtures.h"
#include "classifier/classifier.h"
#include "classifier/state.h"
#include "devcheck/amp.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "distributed/ranks.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

// Small and quick on a shared 2-core machine.
TrainOptions quick() {
  return TrainOptions().device("cpu").threads(1).test_samples(1000).report_every(25);
}

// The cores this test may run on, as the trainer counts them.
int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  return CPU_COUNT(&set);
}

TEST(TrainClassifier, DefaultPrefetchKeepsAThreadOnlyWhereACoreIsFreeForIt) {
  // The CPU: a prefetching thread only beside compute threads that leave a core.
  EXPECT_EQ(default_prefetch(c10::kCPU, 1, 1, 2), 2u);
  EXPECT_EQ(default_prefetch(c10::kCPU, 2, 1, 2), 0u);  // two ranks, one thread each
  EXPECT_EQ(default_prefetch(c10::kCPU, 1, 2, 2), 0u);  // one process, every core
  EXPECT_EQ(default_prefetch(c10::kCPU, 2, 1, 4), 2u);
  EXPECT_EQ(default_prefetch(c10::kCPU, 2, 2, 4), 0u);
  EXPECT_EQ(default_prefetch(c10::kCPU, 1, 1, 1), 0u);
  // An accelerator: the copies overlap the compute, whatever the cores.
  EXPECT_EQ(default_prefetch(c10::Device(c10::kCUDA, 1), 2, 1, 2), 2u);
}

TEST(TrainClassifier, ReportSaysWhichPrefetchDepthRan) {
  const TrainReport chosen = train_classifier(quick().max_steps(5).test_samples(100).prefetch(3));
  EXPECT_EQ(chosen.prefetch, 3u);
  EXPECT_EQ(nlohmann::json::parse(chosen.to_json())["prefetch"], 3);
  const TrainReport synchronous =
      train_classifier(quick().max_steps(5).test_samples(100).prefetch(0));
  EXPECT_EQ(synchronous.prefetch, 0u);
  EXPECT_EQ(synchronous.epochs[0].steps, 5);
  // Unset: one process of one thread (quick()).
  const TrainReport unset = train_classifier(quick().max_steps(5).test_samples(100));
  EXPECT_EQ(unset.prefetch, default_prefetch(c10::kCPU, 1, 1, usable_cores()));
}

TEST(TrainClassifier, ReportOfRanksSaysHowGradientsTravelledAndWhereTheirTimeWent) {
  TrainReport r;
  r.world_size = 2;
  r.train_seconds = 10;
  r.samples_per_second = 6000;
  r.gradient_transport = "shared memory";
  r.gradient_wait_seconds = 0.5;
  r.gradient_averaging_seconds = 0.25;
  EXPECT_THAT(r.summary_text(),
              HasSubstr("6000 samples/s over 2 processes, gradients through shared memory; per "
                        "rank 5.0% of the time waiting for the other ranks, 2.5% averaging "
                        "gradients)\n"));
  const nlohmann::json j = nlohmann::json::parse(r.to_json());
  EXPECT_EQ(j["gradient_wait_seconds"], 0.5);
  EXPECT_EQ(j["gradient_averaging_seconds"], 0.25);
  // Gloo over TCP does not tell waiting from transfer: no shares.
  r.gradient_transport = "gloo";
  EXPECT_THAT(r.summary_text(), HasSubstr("over 2 processes, gradients through gloo)\n"));
  // One process: no transport at all.
  r.world_size = 1;
  EXPECT_THAT(r.summary_text(), HasSubstr("6000 samples/s)\n"));
  EXPECT_FALSE(nlohmann::json::parse(r.to_json()).contains("gradient_wait_seconds"));
}

TEST(TrainClassifier, ModelIsTheSeeds) {
  Classifier model;
  std::vector<std::string> names;
  for (const auto& p : model->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"conv.weight", "conv.bias", "fc.weight", "fc.bias"}));
  EXPECT_EQ(model->fc->weight.sizes(), (std::vector<int64_t>{10, int64_t{32} * 26 * 26}));
  EXPECT_EQ(model->forward(at::zeros({5, 1, 28, 28})).sizes(), (std::vector<int64_t>{5, 10}));
}

TEST(TrainClassifier, ThreeHundredStepsBringTheLossWellBelowItsStart) {
  std::vector<TrainProgress> seen;
  const TrainReport r =
      train_classifier(quick().max_steps(300), [&](const TrainProgress& p) { seen.push_back(p); });
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_EQ(r.epochs[0].steps, 300);
  EXPECT_EQ(r.epochs[0].samples, 300 * 32);
  EXPECT_EQ(r.device, "cpu");
  EXPECT_GT(r.loss_start, 0.9);               // first 25 steps, from ~2.3
  EXPECT_LT(r.loss_end, 0.5 * r.loss_start);  // last 25 steps
  EXPECT_GT(r.test_accuracy, 0.70);
  EXPECT_EQ(r.test_samples, 1000);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().kind, TrainProgress::Kind::kStarted);
  EXPECT_EQ(seen.back().kind, TrainProgress::Kind::kEpochEnd);
  EXPECT_THAT(r.to_text(), HasSubstr("epoch 1/1: 300 steps"));
  EXPECT_THAT(r.to_text(), HasSubstr("test accuracy: "));
}

TEST(TrainClassifier, FixedSeedGivesTheSameRun) {
  const TrainReport a = train_classifier(quick().max_steps(20).test_samples(200).seed(5));
  const TrainReport b = train_classifier(quick().max_steps(20).test_samples(200).seed(5));
  EXPECT_EQ(a.epochs[0].mean_loss, b.epochs[0].mean_loss);
  EXPECT_EQ(a.test_accuracy, b.test_accuracy);
}

TEST(TrainClassifier, CpuAmpTrainsInBFloat16) {
  const TrainReport r = train_classifier(quick().amp(true).max_steps(100).test_samples(500));
  EXPECT_TRUE(r.amp);
  EXPECT_LT(r.loss_end, r.loss_start);
  EXPECT_GT(r.test_accuracy, 0.5);
}

TEST(TrainClassifier, CheckpointResumesAndPythonTorchLoadReadsIt) {
  testing::TempDir dir;
  const std::string first = (dir / "first.pt").string();
  const std::string second = (dir / "second.pt").string();
  const TrainReport a = train_classifier(quick().max_steps(150).out(first));
  EXPECT_EQ(a.checkpoint, first);

  // The file: named CPU tensors in a fixed layout.
  const auto entries = load_tensors(first, MapLocation::to(c10::kCPU));
  std::vector<std::string> keys;
  keys.reserve(entries.size());
  for (const auto& [k, t] : entries) keys.push_back(k);
  EXPECT_THAT(keys, ::testing::Contains("model.fc.weight"));
  EXPECT_THAT(keys, ::testing::Contains("optimizer.state.2.exp_avg_sq"));
  EXPECT_THAT(keys, ::testing::Contains("epoch"));

  // Resumed: starts at epoch 2 with the trained weights and Adam's moments,
  // so its loss starts low, not at ~2.3.
  const TrainReport b = train_classifier(quick().epochs(2).max_steps(50).resume(first).out(second));
  EXPECT_EQ(b.first_epoch, 2);
  ASSERT_EQ(b.epochs.size(), 1u);
  EXPECT_EQ(b.epochs[0].epoch, 2);
  EXPECT_EQ(b.global_step, 200);
  EXPECT_LT(b.loss_start, a.loss_start * 0.6);
  EXPECT_THAT(b.to_text(), HasSubstr("resumed from " + first));

  // Real PyTorch reads it and the weights work in the same model written in Python.
  ASSERT_TRUE(testing::python_torch_available());
  const auto py = testing::run_python(R"(
import sys, torch, gzip, numpy as np
state = torch.load(sys.argv[1], weights_only=True)
assert type(state).__name__ == "OrderedDict", type(state)
assert int(state["epoch"]) == 2 and int(state["step"]) == 200, (state["epoch"], state["step"])
assert int(state["optimizer.state.0.step"]) == 200
model = torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.Linear(32 * 26 * 26, 10))
names = {"conv.weight": "0.weight", "conv.bias": "0.bias", "fc.weight": "3.weight", "fc.bias": "3.bias"}
model.load_state_dict({names[k[6:]]: v for k, v in state.items() if k.startswith("model.")})
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz") as f:
    x = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=16).copy()).float().div(255)
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz") as f:
    y = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=8).copy()).long()
x = x.view(-1, 1, 28, 28)[:1000]
with torch.no_grad():
    acc = (model(x).argmax(1) == y[:1000]).float().mean().item()
print("python accuracy", acc)
assert abs(acc - float(sys.argv[2])) < 2.5e-3, acc
)",
                                      {second, std::to_string(b.test_accuracy)});
  EXPECT_EQ(py.exit_code, 0) << py.output;
  // And op by op it is what 2.6's weights-only unpickler accepts too.
  testing::expect_weights_only_loads(first);
  testing::expect_weights_only_loads(second);
}

double saved_lr(const std::string& path) {
  for (const auto& [key, t] : load_tensors(path, MapLocation::to(c10::kCPU))) {
    if (key == "optimizer.lr") return t.item<double>();
  }
  ADD_FAILURE() << "no optimizer.lr in " << path;
  return -1;
}

TEST(TrainClassifier, CosineScheduleDecaysOverAllEpochsAndConstantKeepsTheRate) {
  testing::TempDir dir;
  const std::string cosine = (dir / "cosine.pt").string();
  const std::string constant = (dir / "constant.pt").string();
  train_classifier(quick().epochs(2).max_steps(20).test_samples(100).out(cosine));
  // The last step is step 19 of epoch 2: 39 of 40 steps done.
  const double pi = std::acos(-1.0);
  const double lr = TrainOptions().learning_rate();
  EXPECT_NEAR(saved_lr(cosine), lr * 0.5 * (1 + std::cos(pi * 39.0 / 40.0)), 1e-12);
  train_classifier(
      quick().max_steps(20).test_samples(100).lr_schedule(LrSchedule::kConstant).out(constant));
  EXPECT_EQ(saved_lr(constant), lr);
}

TEST(TrainClassifier, ResumedRunEqualsTheUninterruptedOneBitwise) {
  testing::TempDir dir;
  const std::string whole = (dir / "whole.pt").string();
  const std::string half = (dir / "half.pt").string();
  const std::string resumed = (dir / "resumed.pt").string();
  const auto options = quick().max_steps(15).test_samples(100).lr_schedule(LrSchedule::kConstant);
  train_classifier(TrainOptions(options).epochs(2).out(whole));
  train_classifier(TrainOptions(options).epochs(1).out(half));
  train_classifier(TrainOptions(options).epochs(2).resume(half).out(resumed));
  const auto a = load_tensors(whole, MapLocation::to(c10::kCPU));
  const auto b = load_tensors(resumed, MapLocation::to(c10::kCPU));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(at::equal(a[i].second, b[i].second)) << a[i].first << " differs after resume";
  }
}

TEST(KeepFreedHostMemory, GlibcAcceptsTheSettings) {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_TRUE(keep_freed_host_memory());
#else
  EXPECT_FALSE(keep_freed_host_memory());  // not glibc's malloc: nothing to tune
#endif
}

TEST(TrainClassifier, ResumeFromAMissingFileNamesIt) {
  try {
    train_classifier(quick().max_steps(1).resume("/nonexistent/ckpt.pt"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.message(), HasSubstr("/nonexistent/ckpt.pt"));
  }
}

TEST(TrainClassifier, MissingDataIsOneLineNamingThePackage) {
  testing::TempDir dir;
  try {
    train_classifier(quick().data_dir(dir.path().string()));
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr("dataset-fashion-mnist"));
  }
}

TEST(TrainClassifier, RejectsBadOptionsNamingTheOption) {
  try {
    train_classifier(quick().epochs(0));
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("expected TrainOptions::epochs >= 1; received 0"));
  }
  EXPECT_THROW(train_classifier(quick().batch_size(0)), InvalidArgumentError);
  EXPECT_THROW(train_classifier(quick().device("gpu:x")), InvalidArgumentError);
}

TEST(TrainState, FlattenAndRestoreRoundTripWeightsAndAdamState) {
  Classifier a;
  torch::optim::Adam opt_a(a->parameters(), torch::optim::AdamOptions(1e-3));
  a->forward(at::randn({4, 1, 28, 28})).sum().backward();
  opt_a.step();
  GradScaler scaler(GradScalerOptions().enabled(false));
  const auto entries = detail::flatten_training_state(a, opt_a, scaler, {3, 77});

  Classifier b;
  torch::optim::Adam opt_b(b->parameters(), torch::optim::AdamOptions(1e-3));
  const auto pos = detail::restore_training_state(entries, "x.pt", b, opt_b, scaler);
  EXPECT_EQ(pos.epoch, 3);
  EXPECT_EQ(pos.step, 77);
  EXPECT_TRUE(at::equal(a->fc->weight, b->fc->weight));
  // Both optimizers now take the identical next step.
  opt_a.zero_grad();
  opt_b.zero_grad();
  a->forward(at::ones({2, 1, 28, 28})).sum().backward();
  b->forward(at::ones({2, 1, 28, 28})).sum().backward();
  opt_a.step();
  opt_b.step();
  EXPECT_TRUE(at::equal(a->conv->weight, b->conv->weight));
}

TEST(TrainState, MissingEntryNamesKeyAndFile) {
  Classifier m;
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-3));
  GradScaler scaler;
  try {
    detail::restore_training_state({}, "old.pt", m, opt, scaler);
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("old.pt"));
    EXPECT_THAT(e.message(), HasSubstr("'epoch'"));
  }
  auto entries = detail::flatten_training_state(m, opt, scaler, {1, 2});
  entries.erase(entries.begin());  // model.conv.weight
  try {
    detail::restore_training_state(entries, "old.pt", m, opt, scaler);
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("checkpoint old.pt: its 'model.' entries"));
    EXPECT_THAT(e.message(), HasSubstr("1 missing: conv.weight"));
  }
}

// Adam with one step taken on `input`, so every parameter has state.
struct Trained {
  explicit Trained(const at::Tensor& input) {
    model->forward(input).sum().backward();
    optimizer.step();
  }
  Classifier model;
  torch::optim::Adam optimizer{model->parameters(), torch::optim::AdamOptions(1e-3)};
  GradScaler scaler{GradScalerOptions().enabled(false)};
  detail::NamedTensors state() {
    return detail::flatten_training_state(model, optimizer, scaler, {});
  }
};

void expect_equal(const detail::NamedTensors& a, const detail::NamedTensors& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(at::equal(a[i].second, b[i].second)) << a[i].first << " changed";
  }
}

TEST(TrainState, AResumeWithOneBadEntryChangesNothingAndNamesTheEntry) {
  testing::TempDir dir;
  Trained source(at::randn({4, 1, 28, 28}));
  Trained target(at::randn({4, 1, 28, 28}));
  const detail::NamedTensors before = target.state();
  auto find = [](detail::NamedTensors& entries, const std::string& key) -> at::Tensor& {
    for (auto& [name, tensor] : entries) {
      if (name == key) return tensor;
    }
    throw std::runtime_error("no entry " + key);
  };
  struct Bad {
    std::string key;       // the broken entry
    std::string expected;  // what the message says about it
  };
  // The last model entry (the model is loaded after the optimizer state is
  // checked: a bad model entry must not leave the optimizer changed, and one
  // late in the list must not leave the earlier parameters changed); an
  // optimizer entry (checked before the model is touched); the position.
  for (const Bad& bad :
       {Bad{"model.fc.bias", "shape mismatch for 'fc.bias': module [10], file [3]"},
        Bad{"optimizer.state.3.exp_avg", "entry 'optimizer.state.3.exp_avg' has shape [3]"},
        Bad{"epoch", "entry 'epoch'"}}) {
    SCOPED_TRACE(bad.key);
    detail::NamedTensors entries = source.state();
    if (bad.key == "epoch") {
      entries.erase(std::remove_if(entries.begin(), entries.end(),
                                   [&](const auto& e) { return e.first == bad.key; }),
                    entries.end());
    } else {
      find(entries, bad.key) = at::zeros({3});
    }
    const std::string path = (dir / "bad.pt").string();
    detail::save_training_checkpoint(path, entries);
    try {
      detail::restore_training_state(detail::load_training_checkpoint(path, c10::kCPU), path,
                                     target.model, target.optimizer, target.scaler);
      FAIL() << "restored a checkpoint with a bad " << bad.key;
    } catch (const FormatError& e) {
      EXPECT_THAT(e.message(), HasSubstr(path));
      EXPECT_THAT(e.message(), HasSubstr(bad.expected));
    }
    expect_equal(target.state(), before);
  }
  // The good checkpoint still restores.
  const auto position = detail::restore_training_state(source.state(), "good.pt", target.model,
                                                       target.optimizer, target.scaler);
  EXPECT_EQ(position.epoch, 0);
  expect_equal(target.state(), source.state());
}

// ---- TrainOptions::nproc: this process as one rank of several ----------------

TEST(TrainClassifier, TwoRanksOfTrainNprocTrainTogetherAndOnlyRankZeroSpeaks) {
  testing::TempDir dir;
  const std::string out = (dir.path() / "ddp.pt").string();
  const std::vector<testing::RankResult> ranks = testing::run_ranks(
      {DEVCHECK_TORCH_CLI, "train", "--nproc", "2", "--device", "cpu", "--threads", "1",
       "--max-steps", "60", "--test-samples", "500", "--json", "--out", out},
      2, std::chrono::seconds(300));
  ASSERT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  ASSERT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[1].output, "");  // rank 1 prints nothing
  const nlohmann::json report = nlohmann::json::parse(ranks[0].output);
  EXPECT_EQ(report["world_size"], 2);
  EXPECT_EQ(report["device_reason"], "rank 0 of 2, LOCAL_RANK=0 (gloo)");
  EXPECT_EQ(report["gradient_transport"], "shared memory");  // both ranks on this machine
  // The mean rank's time in the all-reduces: some averaging, waiting >= 0,
  // both within the training loop.
  const double train_seconds = report["train_seconds"].get<double>();
  EXPECT_GT(report["gradient_averaging_seconds"].get<double>(), 0.0);
  EXPECT_GE(report["gradient_wait_seconds"].get<double>(), 0.0);
  EXPECT_LT(report["gradient_averaging_seconds"].get<double>() +
                report["gradient_wait_seconds"].get<double>(),
            train_seconds);
  // Two ranks of one thread: a prefetching thread only if a third core is free.
  EXPECT_EQ(report["prefetch"], usable_cores() > 2 ? 2 : 0);
  EXPECT_EQ(report["epochs"][0]["steps"], 60);
  EXPECT_EQ(report["epochs"][0]["samples"], 60 * 32);  // the global batch stays 32
  EXPECT_GT(report["samples_per_second"].get<double>(), 0.0);
  EXPECT_LT(report["loss_end"].get<double>(), report["loss_start"].get<double>());
  EXPECT_GT(report["test_accuracy"].get<double>(), 0.6);
  // Rank 0's checkpoint: the model's own names, no "module." prefix.
  const detail::NamedTensors saved = detail::load_training_checkpoint(out, c10::kCPU);
  std::vector<std::string> model_keys;
  for (const auto& [key, value] : saved) {
    if (key.rfind("model.", 0) == 0) model_keys.push_back(key);
  }
  EXPECT_EQ(model_keys, (std::vector<std::string>{"model.conv.weight", "model.conv.bias",
                                                  "model.fc.weight", "model.fc.bias"}));
}

TEST(TrainClassifier, NprocWithoutALauncherSaysToRunItThroughDevcheckTrain) {
  const testing::ProcessResult r = testing::run_process(
      {DEVCHECK_TORCH_CLI, "train", "--nproc", "2", "--max-steps", "1"}, {"WORLD_SIZE="});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--nproc 2 needs 2 processes; run it through `devcheck train "
                                  "--nproc 2`"));
  try {
    setenv("WORLD_SIZE", "3", 1);
    train_classifier(quick().nproc(2));
    unsetenv("WORLD_SIZE");
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    unsetenv("WORLD_SIZE");
    EXPECT_THAT(e.message(), HasSubstr("TrainOptions::nproc is 2 but WORLD_SIZE is 3"));
  }
}

TEST(TrainClassifier, GlobalBatchMustSplitEvenlyOverTheProcesses) {
  try {
    train_classifier(quick().nproc(3).batch_size(32));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("expected TrainOptions::batch_size divisible by nproc (3)"));
    EXPECT_THAT(e.message(), HasSubstr("received 32"));
  }
}

}  // namespace
}  // namespace devcheck
