// Gradient averaging in DistributedDataParallel, two ranks, in one run, on
// the classifier behind `devcheck train` (Adam, global batch 32 = 16 per
// rank, synthetic Fashion-MNIST-shaped batches), three ways: c10d's Reducer
// with buckets averaged through shared memory (the default), the Reducer over
// Gloo's TCP loopback, and one blocking Gloo all-reduce per parameter after
// backward (what LibTorch's C++ examples do). Each rank has one intra-op
// thread. Rounds rotate the order; each ratio printed is the median over
// rounds of per-round step-time ratios (> 1: the second is faster):
// per-parameter / bucketed on the same transport (Gloo), then Gloo / shared
// memory. No target: the issue asks for the ratio.
//
// The program starts its own ranks: without RANK in its environment it is
// the driver, and runs itself as ranks 0 and 1 for each measurement.
#include <ATen/ATen.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "classifier/classifier.h"
#include "devcheck/distributed.h"
#include "ratio.h"

namespace {

constexpr int kRounds = 5;
constexpr int kWarmup = 5;
constexpr int kSteps = 40;
constexpr int64_t kRankBatch = 16;

// One rank: train kSteps steps, rank 0 prints the seconds per step.
int rank_main(const std::string& mode) {
  at::set_num_threads(1);
  devcheck::ProcessGroup group =
      devcheck::ProcessGroup::from_env(devcheck::ProcessGroupOptions().device("cpu"));
  at::manual_seed(group.rank());
  devcheck::Classifier model;
  devcheck::DistributedDataParallel ddp(
      model, group,
      devcheck::DistributedDataParallelOptions()
          .gradient_sync(mode == "plain" ? devcheck::GradientSync::kPerParameterAfterBackward
                                         : devcheck::GradientSync::kBucketed)
          .shared_memory(mode == "bucketed"));
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(2.5e-3));
  const at::Tensor x = at::rand({kRankBatch, 1, 28, 28});
  const at::Tensor y = at::randint(0, 10, {kRankBatch}, at::kLong);
  const auto step = [&] {
    adam.zero_grad();
    at::Tensor logits = ddp.forward([&] { return model->forward(x); });
    torch::nn::functional::cross_entropy(logits, y).backward();
    adam.step();
  };
  for (int i = 0; i < kWarmup; ++i) step();
  group.barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kSteps; ++i) step();
  group.barrier();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (group.rank() == 0) std::printf("%.9f\n", seconds / kSteps);
  return 0;
}

// A port on 127.0.0.1 nobody listened on a moment ago.
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("no free port on 127.0.0.1");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// Seconds per step of `mode`, two ranks of this program.
double measure(const std::string& self, const std::string& mode) {
  const std::string port = std::to_string(free_port());
  char out_template[] = "/tmp/ddp_bench_XXXXXX";
  const int out_fd = mkstemp(out_template);
  if (out_fd < 0) throw std::runtime_error("mkstemp failed");
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (r == 0) dup2(out_fd, STDOUT_FILENO);
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", "2", 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", port.c_str(), 1);
      setenv("OMP_NUM_THREADS", "1", 1);
      execl(self.c_str(), self.c_str(), mode.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  bool ok = true;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  close(out_fd);
  std::ifstream in(out_template);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(out_template);
  if (!ok || text.empty()) throw std::runtime_error("a rank of " + mode + " failed");
  return std::stod(text);
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("RANK") != nullptr) return rank_main(argc > 1 ? argv[1] : "bucketed");
  const std::string self = "/proc/self/exe";
  // bucketed: the Reducer, gradients through shared memory (the default);
  // gloo: the Reducer over Gloo's TCP loopback; plain: per parameter, Gloo.
  const std::vector<std::string> modes{"bucketed", "gloo", "plain"};
  std::vector<double> bucketing;  // plain / gloo: buckets and overlap, same transport
  std::vector<double> transport;  // gloo / bucketed: shared memory against TCP
  std::vector<double> best(modes.size(), 1e30);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<double> seconds(modes.size());
    for (size_t k = 0; k < modes.size(); ++k) {
      const size_t m = (k + static_cast<size_t>(round)) % modes.size();  // rotated order
      seconds[m] = measure(self, modes[m]);
      best[m] = std::min(best[m], seconds[m]);
    }
    bucketing.push_back(seconds[2] / seconds[1]);
    transport.push_back(seconds[1] / seconds[0]);
    fmt::print(
        "round {}: bucketed, shared memory {} / step; bucketed, Gloo {} / step; "
        "per-parameter, Gloo {} / step\n",
        round + 1, devcheck::bench::human_time(seconds[0] * 1e9),
        devcheck::bench::human_time(seconds[1] * 1e9),
        devcheck::bench::human_time(seconds[2] * 1e9));
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  fmt::print(
      "ddp_bench: classifier, 2 ranks (Gloo, 127.0.0.1), global batch {} ({} per rank), {} "
      "steps per measurement after {} warm-up, {} rounds\n",
      2 * kRankBatch, kRankBatch, kSteps, kWarmup, kRounds);
  fmt::print("conditions: 1 intra-op thread per rank, {} hardware threads, {}\n",
             std::thread::hardware_concurrency(), devcheck::bench::load_average_text());
  fmt::print(
      "best: bucketed, shared memory {} / step; bucketed, Gloo {} / step; per-parameter, "
      "Gloo {} / step\n",
      devcheck::bench::human_time(best[0] * 1e9), devcheck::bench::human_time(best[1] * 1e9),
      devcheck::bench::human_time(best[2] * 1e9));
  fmt::print(
      "per-parameter after backward / bucketed overlapped (both Gloo) = {:.3f} (median of "
      "{} rounds)\n",
      median(bucketing), bucketing.size());
  fmt::print(
      "bucketed over Gloo / bucketed through shared memory = {:.3f} (median of {} "
      "rounds)\n",
      median(transport), transport.size());
  return 0;
}
