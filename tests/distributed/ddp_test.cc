// DistributedDataParallel with two real ranks on Gloo (worker.cc), checked
// against one process trained on the concatenated batches.
#include <gtest/gtest.h>
#include <torch/optim/sgd.h>
#include <torch/serialize.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "devcheck/fake_device.h"
#include "distributed/net.h"
#include "distributed/ranks.h"
#include "process/cores.h"
#include "support/support.h"

namespace devcheck::testing {
namespace {

constexpr int kSteps = 4;
constexpr auto kDeadline = std::chrono::seconds(120);

// One process, the whole global batch of each step: what DDP must match.
std::vector<at::Tensor> single_process(int steps, bool accumulate) {
  torch::manual_seed(100);  // rank 0's weights, which DDP copies to every rank
  Net net;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<at::Tensor> after;
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    for (int micro = 0; micro < (accumulate ? 2 : 1); ++micro) {
      auto [x, y] = global_batch(accumulate ? 2 * step + micro : step, 2);
      net->forward(x).sub(y).pow(2).mean().backward();
    }
    optimizer.step();
    after.push_back(flat_parameters(*net));
  }
  return after;
}

at::Tensor load_parameters(const TempDir& dir, int rank, int step) {
  at::Tensor t;
  torch::load(
      t, (dir.path() / ("rank" + std::to_string(rank) + "_step" + std::to_string(step) + ".pt"))
             .string());
  return t;
}

void expect_matches_single_process(const std::string& device, const std::string& sync,
                                   bool accumulate, const std::string& transport,
                                   const std::string& declined = "") {
  // A "-views" suffix (gradients as bucket views) changes nothing else.
  const SyncName parsed = parse_sync_name(sync);
  const std::string& base = parsed.base;
  const bool views = parsed.views;
  TempDir dir;
  std::vector<std::string> argv{worker_path(), "train", dir.path().string(),
                                device,        sync,    std::to_string(kSteps)};
  if (accumulate) argv.emplace_back("accumulate");
  const std::vector<RankResult> ranks = run_ranks(argv, 2, kDeadline);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(ranks[r].exit_code, 0) << "rank " << r << ":\n" << ranks[r].output;
  }
  for (int r = 0; r < 2; ++r) {
    EXPECT_NE(ranks[r].output.find("backend gloo"), std::string::npos) << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("transport " + transport + "\n"), std::string::npos)
        << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("declined " + declined + "\n"), std::string::npos)
        << ranks[r].output;
    // The training thread's spin before sleeping: set, or 50 ms when the two
    // ranks' threads fit the cores, else 50 us; none off shared memory.
    int64_t spin = -1;
    int threads = 0;
    const size_t at = ranks[r].output.find("\nspin ");
    ASSERT_NE(at, std::string::npos) << ranks[r].output;
    std::istringstream line(ranks[r].output.substr(at));
    std::string spin_word;
    std::string threads_word;
    line >> spin_word >> spin >> threads_word >> threads;
    ASSERT_EQ(spin_word + threads_word, "spinthreads") << ranks[r].output;
    const int64_t expected = transport != "shared memory"            ? 0
                             : base == "one-bucket-spin"             ? 1234
                             : 2 * threads <= detail::usable_cores() ? 50000
                                                                     : 50;
    EXPECT_EQ(spin, expected) << ranks[r].output;
  }
  // Where the all-reduces' time went: counted through shared memory only,
  // every bucket of every synchronized backward (no_sync's are not).
  for (int r = 0; r < 2; ++r) {
    const size_t buckets_at = ranks[r].output.find(" buckets ");
    const size_t time_at = ranks[r].output.find("all-reduces ");
    ASSERT_NE(buckets_at, std::string::npos) << ranks[r].output;
    ASSERT_NE(time_at, std::string::npos) << ranks[r].output;
    int64_t buckets = 0;
    std::istringstream(ranks[r].output.substr(buckets_at + 9)) >> buckets;
    std::istringstream words(ranks[r].output.substr(time_at));
    std::string all_reduces_word;
    std::string waiting_word;
    std::string averaging_word;
    int64_t all_reduces = -1;
    double waiting = -1;
    double averaging = -1;
    words >> all_reduces_word >> all_reduces >> waiting_word >> waiting >> averaging_word >>
        averaging;
    ASSERT_EQ(all_reduces_word, "all-reduces") << ranks[r].output;
    ASSERT_EQ(waiting_word, "waiting") << ranks[r].output;
    ASSERT_EQ(averaging_word, "averaging") << ranks[r].output;
    if (transport == "shared memory") {
      EXPECT_EQ(all_reduces, kSteps * buckets) << ranks[r].output;
      EXPECT_GE(waiting, 0.0) << ranks[r].output;
      EXPECT_GT(averaging, 0.0) << ranks[r].output;
    } else {
      EXPECT_EQ(all_reduces, 0) << ranks[r].output;
      EXPECT_EQ(waiting, 0.0) << ranks[r].output;
      EXPECT_EQ(averaging, 0.0) << ranks[r].output;
    }
  }
  if (base == "one-bucket" || base == "one-bucket-spin") {
    EXPECT_NE(ranks[0].output.find("buckets 1\n"), std::string::npos) << ranks[0].output;
  } else if (base != "plain") {
    // Small buckets: the Reducer has several, so it reduces during backward.
    EXPECT_EQ(ranks[0].output.find("buckets 1\n"), std::string::npos) << ranks[0].output;
  }
  // Gradients are views into the Reducer's buckets only when asked for.
  for (int r = 0; r < 2; ++r) {
    const std::string all = std::to_string(Net()->parameters().size());
    EXPECT_NE(ranks[r].output.find("gradients as bucket views " + (views ? all : "0") + " of " +
                                   all + "\n"),
              std::string::npos)
        << ranks[r].output;
    // Buckets averaged through shared memory are moved into the segment, and
    // bucket views with them: the all-reduce copies nothing in or out.
    const bool in_segment = views && transport == "shared memory";
    EXPECT_NE(ranks[r].output.find("gradients in shared memory " + (in_segment ? all : "0") +
                                   " of " + all + "\n"),
              std::string::npos)
        << ranks[r].output;
  }
  const std::vector<at::Tensor> expected = single_process(kSteps, accumulate);
  for (int step = 0; step < kSteps; ++step) {
    const at::Tensor rank0 = load_parameters(dir, 0, step);
    const at::Tensor rank1 = load_parameters(dir, 1, step);
    EXPECT_TRUE(at::equal(rank0, rank1)) << "step " << step << ": the ranks' parameters differ";
    const double diff = (rank0 - expected[static_cast<size_t>(step)]).abs().max().item<double>();
    EXPECT_LT(diff, 1e-5) << "step " << step << ": DDP is " << diff
                          << " from one process on the concatenated batches";
  }
  // The weights moved: the comparison above is not between initial values.
  EXPECT_FALSE(at::allclose(expected.front(), expected.back()));
}

// Why every rank is on Gloo when rank `rank` turned shared memory off.
std::string turned_off(int rank) {
  return "rank " + std::to_string(rank) +
         " turned it off (DistributedDataParallelOptions::shared_memory)";
}

TEST(DistributedDataParallel, TwoCpuRanksMatchOneProcessOnTheConcatenatedBatches) {
  expect_matches_single_process("cpu", "bucketed", false, "shared memory");
}

// One bucket: the last bucket with nothing queued before it is averaged on
// the thread that finishes backward, not handed to the worker thread.
TEST(DistributedDataParallel, OneBucketReducedOnTheBackwardThreadMatchesToo) {
  expect_matches_single_process("cpu", "one-bucket", false, "shared memory");
}

TEST(DistributedDataParallel, ASpinWaitSetInTheOptionsIsUsedAndResultsMatch) {
  expect_matches_single_process("cpu", "one-bucket-spin", false, "shared memory");
}

TEST(DistributedDataParallel, TwoCpuRanksOverGlooMatchToo) {
  expect_matches_single_process("cpu", "bucketed-gloo", false, "gloo", turned_off(0));
}

TEST(DistributedDataParallel, OneRankTurningSharedMemoryOffPutsEveryRankOnGloo) {
  expect_matches_single_process("cpu", "bucketed-rank1-gloo", false, "gloo", turned_off(1));
}

TEST(DistributedDataParallel, PerParameterAllReduceAfterBackwardMatchesToo) {
  expect_matches_single_process("cpu", "plain", false, "gloo");
}

TEST(DistributedDataParallel, FakeDeviceRanksMatchOneProcess) {
  expect_matches_single_process("fake", "bucketed", false, "shared memory");
}

TEST(DistributedDataParallel, FakeDeviceRanksOverGlooMatchToo) {
  expect_matches_single_process("fake", "bucketed-gloo", false, "gloo", turned_off(0));
}

TEST(DistributedDataParallel, NoSyncAccumulationMatchesOneProcessOnBothMicroBatches) {
  expect_matches_single_process("cpu", "bucketed", true, "shared memory");
}

// Gradients as views into the buckets (gradient_as_bucket_view), zeroed in
// place by the DDP: several buckets, one bucket on the backward thread, no_sync
// accumulation, and the fake device's staged all-reduce.
TEST(DistributedDataParallel, GradientsAsBucketViewsMatchOneProcess) {
  expect_matches_single_process("cpu", "bucketed-views", false, "shared memory");
}

TEST(DistributedDataParallel, GradientsAsBucketViewsInOneBucketMatchToo) {
  expect_matches_single_process("cpu", "one-bucket-views", false, "shared memory");
}

TEST(DistributedDataParallel, GradientsAsBucketViewsAccumulateUnderNoSync) {
  expect_matches_single_process("cpu", "bucketed-views", true, "shared memory");
}

TEST(DistributedDataParallel, GradientsAsBucketViewsOnFakeDeviceRanksOverGlooMatch) {
  expect_matches_single_process("fake", "bucketed-gloo-views", false, "gloo", turned_off(0));
}

// Both ranks exit, with the same message, well before the deadline.
void expect_both_fail_with(const std::string& mode, const std::string& message) {
  const std::vector<RankResult> ranks = run_ranks({worker_path(), mode}, 2, kDeadline);
  for (int r = 0; r < 2; ++r) {
    EXPECT_FALSE(ranks[r].timed_out) << "rank " << r << " hung:\n" << ranks[r].output;
    EXPECT_LT(ranks[r].seconds, 60.0) << "rank " << r;
    EXPECT_EQ(ranks[r].exit_code, 3) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_NE(ranks[r].output.find(message), std::string::npos) << "rank " << r << ":\n"
                                                                << ranks[r].output;
    EXPECT_EQ(ranks[r].output.find("constructed"), std::string::npos) << ranks[r].output;
  }
}

TEST(DistributedDataParallel, ParameterOnAnotherRanksDeviceFailsOnBothRanksNamingRankAndParameter) {
  // The fake device's name: "privateuseone" in 1.13, "fake" once renamed (2.x).
  expect_both_fail_with("wrong_device", "rank 1's parameter 'fc1.weight' is on " +
                                            fake_device(0).str() + ", expected " +
                                            fake_device(1).str() +
                                            " (rank 1's device, LOCAL_RANK=1)");
}

TEST(DistributedDataParallel, CpuParameterOnAFakeRankFailsOnBothRanks) {
  expect_both_fail_with("cpu_parameter", "rank 1's parameter 'fc2.weight' is on cpu, expected " +
                                             fake_device(1).str());
}

TEST(DistributedDataParallel, MismatchedShapeFailsOnBothRanksNamingBothShapes) {
  expect_both_fail_with("wrong_shape",
                        "ranks disagree on parameter 'fc1.weight': rank 0 has [16, 8] float32, "
                        "rank 1 has [17, 8] float32");
}

// Gloo notices a dead peer by its socket; the shared memory all-reduce by the
// robust mutex the peer's reducing thread held.
TEST(DistributedDataParallel, ARankKilledMidTrainingFailsTheOtherAtOnceNamingIt) {
  const std::vector<RankResult> ranks = run_ranks({worker_path(), "killed"}, 2, kDeadline);
  EXPECT_EQ(ranks[1].exit_code, -1) << ranks[1].output;  // SIGKILL
  EXPECT_NE(ranks[0].output.find("transport shared memory"), std::string::npos) << ranks[0].output;
  EXPECT_FALSE(ranks[0].timed_out) << ranks[0].output;
  EXPECT_LT(ranks[0].seconds, 60.0);  // the group's timeout is 5 minutes
  EXPECT_EQ(ranks[0].exit_code, 3) << ranks[0].output;
  EXPECT_NE(ranks[0].output.find("rank 1 exited (or destroyed its DistributedDataParallel) "
                                 "before gradient all-reduce 3; rank 0 was waiting for it"),
            std::string::npos)
      << ranks[0].output;
}

}  // namespace
}  // namespace devcheck::testing
