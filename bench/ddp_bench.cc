// Gradient averaging in DistributedDataParallel, two ranks on Gloo, in one
// run: c10d's Reducer (buckets all-reduced while backward runs) against one
// blocking all-reduce per parameter after backward (what LibTorch's C++
// examples do), on the classifier behind `devcheck train` (Adam, global batch
// 32 = 16 per rank, synthetic Fashion-MNIST-shaped batches). Each rank has
// one intra-op thread. Rounds alternate the two (paired, rotated); the ratio
// printed is the median over rounds of per-round plain / bucketed step time
// (> 1: the Reducer is faster). No target: the issue asks for the ratio.
//
// The program starts its own ranks: without RANK in its environment it is
// the driver, and runs itself twice per measurement as ranks 0 and 1.
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
      devcheck::DistributedDataParallelOptions().gradient_sync(
          mode == "plain" ? devcheck::GradientSync::kPerParameterAfterBackward
                          : devcheck::GradientSync::kBucketed));
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
  std::vector<double> ratios;
  double bucketed_best = 1e30;
  double plain_best = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    double bucketed = 0;
    double plain = 0;
    if (round % 2 == 0) {
      bucketed = measure(self, "bucketed");
      plain = measure(self, "plain");
    } else {
      plain = measure(self, "plain");
      bucketed = measure(self, "bucketed");
    }
    bucketed_best = std::min(bucketed_best, bucketed);
    plain_best = std::min(plain_best, plain);
    ratios.push_back(plain / bucketed);
    fmt::print("round {}: bucketed {} / step, per-parameter {} / step, ratio {:.3f}\n", round + 1,
               devcheck::bench::human_time(bucketed * 1e9),
               devcheck::bench::human_time(plain * 1e9), plain / bucketed);
  }
  std::sort(ratios.begin(), ratios.end());
  fmt::print(
      "ddp_bench: classifier, 2 ranks (Gloo, 127.0.0.1), global batch {} ({} per rank), {} "
      "steps per measurement after {} warm-up, {} rounds\n",
      2 * kRankBatch, kRankBatch, kSteps, kWarmup, kRounds);
  fmt::print("conditions: 1 intra-op thread per rank, {} hardware threads, {}\n",
             std::thread::hardware_concurrency(), devcheck::bench::load_average_text());
  fmt::print("best: bucketed {} / step, per-parameter {} / step\n",
             devcheck::bench::human_time(bucketed_best * 1e9),
             devcheck::bench::human_time(plain_best * 1e9));
  fmt::print("per-parameter after backward / bucketed overlapped = {:.3f} (median of {} rounds)\n",
             ratios[ratios.size() / 2], ratios.size());
  return 0;
}
