// One rank of the distributed tests (tests/distributed/ranks.h starts it):
//   worker train OUT_DIR DEVICE SYNC STEPS [accumulate]
//       DEVICE cpu|fake, SYNC bucketed (gradients through shared memory),
//       bucketed-gloo (shared memory off), bucketed-rank1-gloo (rank 1 alone
//       turns it off), one-bucket, one-bucket-spin or plain; a "-views"
//       suffix makes gradients bucket views, zeroed by the DDP (printed as
//       "gradients as bucket views K of N", and how many of them the buckets'
//       move into the shared memory segment took along, as "gradients in
//       shared memory K of N"). Trains the test Net with SGD
//       on this rank's shard of each step's global batch and writes its
//       flattened parameters after each step to OUT_DIR/rank<R>_step<K>.pt.
//       "accumulate": each step is two micro-batches, the first under no_sync.
//   worker wrong_device        parameters on fake:0 on every rank (fake policy)
//   worker wrong_shape         rank 1 builds a wider hidden layer
//   worker cpu_parameter       rank 1's fc2 stays on the CPU (fake policy)
//   worker killed              two CPU ranks train; rank 1 SIGKILLs itself before
//                              its third backward (no launcher to stop rank 0)
// Prints the error's message on stderr and exits 3 when construction throws.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/optim/sgd.h>
#include <torch/serialize.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/distributed.h"
#include "devcheck/fake_device.h"
#include "distributed/net.h"
#include "distributed/worker_main.h"

namespace {

using devcheck::DistributedDataParallel;
using devcheck::DistributedDataParallelOptions;
using devcheck::GradientSync;
using devcheck::ProcessGroup;
using devcheck::ProcessGroupOptions;
using devcheck::testing::Net;

// Address ranges of this process's mappings of DDP shared memory segments.
std::vector<std::pair<uintptr_t, uintptr_t>> segment_ranges() {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/dev/shm/devcheck-ddp-") == std::string::npos) continue;
    const size_t dash = line.find('-');
    ranges.emplace_back(std::stoull(line.substr(0, dash), nullptr, 16),
                        std::stoull(line.substr(dash + 1), nullptr, 16));
  }
  return ranges;
}

// Small buckets, so the Reducer has several and reduces while backward runs.
DistributedDataParallelOptions small_buckets(GradientSync sync) {
  return DistributedDataParallelOptions().first_bucket_bytes(256).bucket_bytes(512).gradient_sync(
      sync);
}

int train(int argc, char** argv) {
  if (argc < 6) return 2;
  const std::string out = argv[2];
  const std::string device = argv[3];
  // A "-views" suffix: gradients as bucket views, zeroed by the DDP.
  const devcheck::testing::SyncName parsed = devcheck::testing::parse_sync_name(argv[4]);
  const std::string& sync_name = parsed.base;
  const bool views = parsed.views;
  const GradientSync sync =
      sync_name == "plain" ? GradientSync::kPerParameterAfterBackward : GradientSync::kBucketed;
  const int steps = std::atoi(argv[5]);
  const bool accumulate = argc > 6 && std::string(argv[6]) == "accumulate";

  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device(device));
  torch::manual_seed(100 + group.rank());  // different weights: DDP copies rank 0's
  Net net;
  net->to(group.device());
  const bool shared_memory = sync_name == "bucketed" || sync_name == "one-bucket" ||
                             sync_name == "one-bucket-spin" ||
                             (sync_name == "bucketed-rank1-gloo" && group.rank() == 0);
  // "one-bucket": the default caps, so the whole model is one bucket, reduced
  // on the thread that finishes backward.
  // "one-bucket-spin": the same, with spin_wait set.
  const bool one_bucket = sync_name == "one-bucket" || sync_name == "one-bucket-spin";
  DistributedDataParallelOptions options =
      one_bucket ? DistributedDataParallelOptions().gradient_sync(sync) : small_buckets(sync);
  if (sync_name == "one-bucket-spin") options.spin_wait(std::chrono::microseconds(1234));
  DistributedDataParallel ddp(net, group,
                              options.shared_memory(shared_memory).gradient_as_bucket_view(views));
  std::cout << "rank " << group.rank() << " device " << group.device() << " backend "
            << group.backend() << " buckets " << ddp.bucket_indices().size() << "\ntransport "
            << ddp.gradient_transport() << "\ndeclined " << ddp.shared_memory_declined()
            << "\nspin " << ddp.spin_wait().count() << " threads " << at::get_num_threads()
            << std::endl;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1));
  const int64_t world = group.world_size();
  const int64_t rank = group.rank();
  const auto local = [&](int64_t micro) {
    auto [x, y] = devcheck::testing::global_batch(micro, world);
    const int64_t begin = rank * devcheck::testing::kRankBatch;
    const int64_t end = begin + devcheck::testing::kRankBatch;
    return std::make_pair(x.slice(0, begin, end).to(group.device()),
                          y.slice(0, begin, end).to(group.device()));
  };
  for (int step = 0; step < steps; ++step) {
    if (views) {
      ddp.zero_grad();
    } else {
      optimizer.zero_grad();
    }
    if (accumulate) {
      // Named tensors, not structured bindings: a lambda captures them.
      const auto first = local(int64_t{2} * step);
      {
        auto guard = ddp.no_sync();
        ddp.forward([&] { return net->forward(first.first); })
            .sub(first.second)
            .pow(2)
            .mean()
            .backward();
      }
      const auto second = local(int64_t{2} * step + 1);
      ddp.forward([&] { return net->forward(second.first); })
          .sub(second.second)
          .pow(2)
          .mean()
          .backward();
    } else {
      const auto batch = local(step);
      ddp.forward([&] { return net->forward(batch.first); })
          .sub(batch.second)
          .pow(2)
          .mean()
          .backward();
    }
    if (step == steps - 1) {
      // Bucket views (gradient_as_bucket_view) are views of a bucket; plain
      // gradients are tensors of their own.
      int in_buckets = 0;
      for (const at::Tensor& p : net->parameters()) in_buckets += p.grad().is_view() ? 1 : 0;
      std::cout << "gradients as bucket views " << in_buckets << " of " << net->parameters().size()
                << std::endl;
      int in_segment = 0;
      const auto ranges = segment_ranges();
      for (const at::Tensor& p : net->parameters()) {
        const auto address = reinterpret_cast<uintptr_t>(p.grad().data_ptr());
        for (const auto& [lo, hi] : ranges) in_segment += address >= lo && address < hi ? 1 : 0;
      }
      std::cout << "gradients in shared memory " << in_segment << " of " << net->parameters().size()
                << std::endl;
    }
    optimizer.step();
    torch::save(devcheck::testing::flat_parameters(*net),
                out + "/rank" + std::to_string(rank) + "_step" + std::to_string(step) + ".pt");
  }
  const devcheck::GradientSyncTime time = ddp.gradient_sync_time();
  std::cout << "all-reduces " << time.all_reduces << " waiting " << time.waiting_seconds
            << " averaging " << time.averaging_seconds << std::endl;
  group.barrier();
  return 0;
}

int killed() {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  Net net;
  DistributedDataParallel ddp(net, group);
  std::cout << "rank " << group.rank() << " transport " << ddp.gradient_transport() << std::endl;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1));
  for (int step = 0; step < 5; ++step) {
    const auto batch = devcheck::testing::global_batch(step, 1);
    optimizer.zero_grad();
    at::Tensor loss =
        ddp.forward([&] { return net->forward(batch.first); }).sub(batch.second).pow(2).mean();
    if (step == 2 && group.rank() == 1) ::raise(SIGKILL);
    loss.backward();
    optimizer.step();
    std::cout << "rank " << group.rank() << " step " << step << std::endl;
  }
  return 0;
}

int construct(const std::string& mode) {
  ProcessGroup group =
      ProcessGroup::from_env(ProcessGroupOptions().device(mode == "wrong_shape" ? "cpu" : "fake"));
  Net net(mode == "wrong_shape" && group.rank() == 1 ? 17 : 16);
  if (mode == "wrong_device") {
    net->to(devcheck::fake_device(0));
  } else if (mode == "cpu_parameter") {
    net->to(group.device());
    if (group.rank() == 1) net->fc2->to(at::kCPU);
  } else {
    net->to(group.device());
  }
  DistributedDataParallel ddp(net, group);
  std::cout << "rank " << group.rank() << " constructed" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: worker train|wrong_device|wrong_shape|cpu_parameter ...\n";
    return 2;
  }
  const std::string mode = argv[1];
  return devcheck::testing::exit_status_of([&] {
    if (mode == "killed") return killed();
    return mode == "train" ? train(argc, argv) : construct(mode);
  });
}
