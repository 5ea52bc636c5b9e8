// Cost of the fake device against the CPU, in one run: a training step of the
// classifier behind `devcheck train` (devcheck::Classifier, Adam at
// TrainOptions' default learning rate, cross-entropy, a synthetic batch of 32
// Fashion-MNIST-shaped images, the trainer's on-device loss sum) on `cpu` and
// on fake:0, and a tiny op (add of two 4-element tensors) for the fake
// device's overhead per op. Target: training step on the fake device <= 2x the
// CPU's. The tiny op has no target: it is the fixed cost every op pays.
// Both run with one intra-op thread. The targets are checked on paired,
// rotated rounds (median of the per-round ratios), the machine being noisy;
// the Google Benchmark rows before them are printed for reference.
#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "classifier/classifier.h"
#include "devcheck/fake_device.h"
#include "ratio.h"

namespace {

constexpr double kTrainTarget = 2.0;

// One training step of `devcheck train` on `device`, without the data loader
// and progress reports: what the loop in src/train/trainer.cc runs per batch.
struct TrainStep {
  explicit TrainStep(c10::Device device) {
    at::manual_seed(0);
    model->to(device);
    x = at::rand({kBatch, 1, 28, 28}).to(device);
    y = at::randint(0, 10, {kBatch}, at::kLong).to(device);
  }

  void run() {
    adam.zero_grad();
    at::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    adam.step();
    const at::Tensor detached = loss.detach().to(at::kFloat);
    loss_sum = loss_sum.defined() ? loss_sum + detached : detached;
  }

  static constexpr int64_t kBatch = 32;  // TrainOptions::batch_size's default
  devcheck::Classifier model;
  torch::optim::Adam adam{model->parameters(),
                          torch::optim::AdamOptions(devcheck::TrainOptions().learning_rate())};
  at::Tensor x;
  at::Tensor y;
  at::Tensor loss_sum;
};

c10::Device device_of(bool fake) { return fake ? devcheck::fake_device(0) : c10::Device("cpu"); }

void train_step(benchmark::State& state, bool fake) {
  at::set_num_threads(1);
  TrainStep step(device_of(fake));
  step.run();  // Adam's state is made on the first step
  for (auto _ : state) step.run();
  state.SetItemsProcessed(state.iterations());
}

void tiny_add(benchmark::State& state, bool fake) {
  at::set_num_threads(1);
  const c10::Device device = device_of(fake);
  at::Tensor a = at::ones({4}, device);
  at::Tensor b = at::ones({4}, device);
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
  state.SetItemsProcessed(state.iterations());
}

// Wall time: the autograd engine runs a backward on a non-CPU device in a
// thread of its own, so the calling thread's CPU time misses the fake
// device's backward.
BENCHMARK_CAPTURE(tiny_add, cpu, false)->UseRealTime();
BENCHMARK_CAPTURE(tiny_add, fake, true)->UseRealTime();
BENCHMARK_CAPTURE(train_step, cpu, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(train_step, fake, true)->Unit(benchmark::kMillisecond)->UseRealTime();

// fake against cpu, measured interleaved: every round runs cpu, cpu again
// (the A/A check: how far apart two identical runs land here) and fake, `reps`
// calls each after one warm-up call, in an order that rotates every round.
// Each round gives one ratio per variant (variant / that round's cpu); the
// median over the rounds is reported. Pairing within a round cancels the
// slow drift of a shared machine, the median its spikes. A target of 0 means
// none (printed for reference).
template <typename Cpu, typename Fake>
bool interleaved_ratio(const char* name, Cpu cpu, Fake fake, int rounds, int reps, double target) {
  constexpr int kVariants = 3;
  const char* names[kVariants] = {"cpu", "cpu_again", "fake"};
  std::vector<double> ratios[kVariants];
  double cpu_ns_sum = 0;
  double fake_ns_sum = 0;
  for (int round = 0; round < rounds; ++round) {
    double ns[kVariants] = {};
    for (int k = 0; k < kVariants; ++k) {
      const int v = (k + round) % kVariants;
      auto work = [&] { v == 2 ? fake() : cpu(); };
      work();
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; ++i) work();
      ns[v] = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
                  .count() /
              reps;
    }
    cpu_ns_sum += ns[0];
    fake_ns_sum += ns[2];
    for (int v = 1; v < kVariants; ++v) ratios[v].push_back(ns[v] / ns[0]);
  }
  bool pass = true;
  fmt::print("\n{}, interleaved (median of {} paired rounds of {} calls; cpu {}, fake {}):\n", name,
             rounds, reps, devcheck::bench::human_time(cpu_ns_sum / rounds),
             devcheck::bench::human_time(fake_ns_sum / rounds));
  for (int v = 1; v < kVariants; ++v) {
    std::vector<double>& r = ratios[v];
    std::sort(r.begin(), r.end());
    const double median = r[r.size() / 2];
    std::string verdict;
    if (v == 1) {
      verdict = "(two identical runs: the noise here)";
    } else if (target == 0.0) {
      verdict = "(the fake device's cost per op, no target)";
    } else {
      pass = median <= target;
      verdict = fmt::format("target <= {:.2f}: {}", target, pass ? "PASS" : "FAIL");
    }
    fmt::print("  {}/{} / {}/cpu = {:.3f} (quartiles {:.3f}-{:.3f}) {}\n", name, names[v], name,
               median, r[r.size() / 4], r[r.size() * 3 / 4], verdict);
  }
  return pass;
}

int interleaved_checks() {
  at::set_num_threads(1);
  const c10::Device fake = devcheck::fake_device(0);
  at::Tensor a = at::ones({4});
  at::Tensor b = at::ones({4});
  at::Tensor fa = at::ones({4}, fake);
  at::Tensor fb = at::ones({4}, fake);
  interleaved_ratio(
      "tiny_add", [&] { benchmark::DoNotOptimize(at::add(a, b)); },
      [&] { benchmark::DoNotOptimize(at::add(fa, fb)); }, 31, 5000, 0.0);
  TrainStep cpu_step(c10::Device("cpu"));
  TrainStep fake_step(fake);
  cpu_step.run();
  fake_step.run();
  const bool train = interleaved_ratio(
      "train_step", [&] { cpu_step.run(); }, [&] { fake_step.run(); }, 31, 10, kTrainTarget);
  return train ? 0 : 1;
}

void print_conditions() {
  at::set_num_threads(1);
  fmt::print("conditions: {} intra-op thread(s), {} hardware threads, {}\n", at::get_num_threads(),
             std::thread::hardware_concurrency(), devcheck::bench::load_average_text());
}

}  // namespace

int main(int argc, char** argv) {
  // Freed buffers stay in the process, as in `devcheck train`: otherwise every
  // step's page faults (and when glibc decides to trim) swamp what is measured.
  devcheck::keep_freed_host_memory();
  print_conditions();
  const int status = devcheck::bench::run_and_print_ratios(
      argc, argv, {{"train_step/fake/real_time", "train_step/cpu/real_time", kTrainTarget}});
  (void)status;  // sequential runs: printed for reference, too noisy here to gate on
  return interleaved_checks();
}
