// LocalAllReduce (src/distributed/local_all_reduce.h) between two or three
// real ranks (local_all_reduce_worker.cc): the mean of every rank's tensor, the same
// bits on every rank, whether the tensors are copied into the segment, adopted
// into it, or some of each; adopt()'s arena; no name left in /dev/shm; the
// same refusal on every rank when one does not want it or /dev/shm has no
// room; and a named rank when one never arrives (after the timeout) or has
// exited (at once).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <chrono>
#include <string>
#include <vector>

#include "distributed/local_all_reduce_cases.h"
#include "distributed/ranks.h"
#include "support/support.h"

namespace devcheck::testing {
namespace {

constexpr auto kDeadline = std::chrono::seconds(120);

std::vector<at::Tensor> load_results(const TempDir& dir, int rank) {
  std::vector<at::Tensor> results;
  torch::load(results, (dir.path() / ("rank" + std::to_string(rank) + ".pt")).string());
  return results;
}

// `world` ranks average every case three times, back to back, each rank's
// tensors copied in or adopted (`adopt`: none, all, odd ranks): every rank
// holds the same bits, close to the mean computed in double.
void expect_every_rank_gets_the_mean(int world, const std::string& adopt) {
  TempDir dir;
  const std::vector<RankResult> ranks = run_ranks(
      {local_all_reduce_worker_path(), "reduce", dir.path().string(), adopt}, world, kDeadline);
  const std::string all_adopted = "adopted " + std::to_string(reduce_cases().size() * 3) + " of " +
                                  std::to_string(reduce_cases().size() * 3) + "\n";
  for (int r = 0; r < world; ++r) {
    ASSERT_EQ(ranks[r].exit_code, 0) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("transport shared memory"), std::string::npos)
        << ranks[r].output;
    // Every call timed: both waits, and this rank's own averaging.
    EXPECT_NE(ranks[r].output.find("timed " + std::to_string(reduce_cases().size() * 3) +
                                   " all-reduces, waiting, averaging\n"),
              std::string::npos)
        << ranks[r].output;
    const bool adopting = adopt == "all" || (adopt == "odd" && r % 2 == 1);
    if (adopting) {
      EXPECT_NE(ranks[r].output.find(all_adopted), std::string::npos) << ranks[r].output;
    } else {
      EXPECT_EQ(ranks[r].output.find("adopted"), std::string::npos) << ranks[r].output;
    }
  }
  // Unlinked once every rank had it mapped: a crash leaves nothing behind.
  EXPECT_NE(ranks[0].output.find("segments in /dev/shm 0\n"), std::string::npos) << ranks[0].output;

  std::vector<std::vector<at::Tensor>> results;
  const std::vector<ReduceCase> cases = reduce_cases();
  for (int r = 0; r < world; ++r) {
    results.push_back(load_results(dir, r));
    ASSERT_EQ(results.back().size(), cases.size() * 3) << "rank " << r;
  }
  size_t i = 0;
  for (const ReduceCase& c : cases) {
    for (int round = 0; round < 3; ++round, ++i) {
      const std::string what = std::string(c10::toString(c.dtype)) + " of " +
                               std::to_string(c.numel) + ", round " + std::to_string(round);
      EXPECT_EQ(results[0][i].scalar_type(), c.dtype) << what;
      at::Tensor expected = at::zeros({c.numel}, at::kDouble);
      for (int r = 0; r < world; ++r) {
        EXPECT_TRUE(at::equal(results[0][i], results[r][i]))
            << what << ": rank " << r << "'s result differs from rank 0's";
        expected.add_(case_input(c, r, round).to(at::kDouble));
      }
      expected.div_(world);
      const double tolerance = c.dtype == at::kBFloat16 ? 1e-2 : 1e-6;
      const double diff = (results[0][i].to(at::kDouble) - expected).abs().max().item<double>();
      EXPECT_LT(diff, tolerance) << what;
    }
  }
}

TEST(LocalAllReduce, EveryRankGetsTheSameMeanOfEveryDtypeAndSizeWithTwoRanks) {
  expect_every_rank_gets_the_mean(2, "none");
}

// Three ranks: chunks of a third, rounded to cache lines, so the last chunk
// is shorter or empty.
TEST(LocalAllReduce, EveryRankGetsTheSameMeanOfEveryDtypeAndSizeWithThreeRanks) {
  expect_every_rank_gets_the_mean(3, "none");
}

// Adopted tensors are averaged where they are, in every rank's arena.
TEST(LocalAllReduce, AdoptedTensorsGetTheSameMeanWithTwoRanks) {
  expect_every_rank_gets_the_mean(2, "all");
}

// Rank 1's tensors adopted, ranks 0 and 2 copying theirs into their slots.
TEST(LocalAllReduce, RanksMixingAdoptedAndCopiedTensorsGetTheSameMean) {
  expect_every_rank_gets_the_mean(3, "odd");
}

// adopt() takes a whole contiguous host storage only, fills the arena first
// fit, reuses freed blocks and merges them; the segment stays mapped while
// an adopted storage lives, after the LocalAllReduce itself is gone.
TEST(LocalAllReduce, AdoptMovesWholeHostStoragesIntoAnArenaThatOutlivesIt) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "arena"}, 2, kDeadline);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(ranks[r].exit_code, 0) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_EQ(ranks[r].output,
              "arena 12288\n"
              "adopts a slice no\n"
              "adopts a strided view no\n"
              "adopts a meta tensor no\n"
              "adopts more than the arena no\n"
              "adopts three blocks yes\n"
              "adopts a fourth no\n"
              "adopts an adopted one again yes\n"
              "adopts into a freed block yes\n"
              "adopts the whole arena once every block is freed yes\n"
              "keeps the values yes\n"
              "with the LocalAllReduce: mappings 1\n"
              "after the LocalAllReduce: mappings 1\n"
              "the adopted tensor still reads yes\n"
              "after the last adopted storage: mappings 0\n")
        << "rank " << r;
  }
}

TEST(LocalAllReduce, OneRankNotWantingItDeclinesOnEveryRankWithTheSameReason) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "off"}, 2, kDeadline);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(ranks[r].exit_code, 0) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("declined: rank 1 turned it off "
                                   "(DistributedDataParallelOptions::shared_memory)"),
              std::string::npos)
        << ranks[r].output;
  }
}

TEST(LocalAllReduce, NoRoomInDevShmDeclinesOnEveryRankNamingTheSize) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "huge"}, 2, kDeadline);
  if (ranks[0].output.find("/dev/shm has no size limit") != std::string::npos) {
    GTEST_SKIP() << "/dev/shm has no size limit here";
  }
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(ranks[r].exit_code, 0) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_THAT(ranks[r].output, ::testing::ContainsRegex("declined: /dev/shm has no room for "
                                                          "[0-9]+ bytes \\([0-9]+ free\\)"));
  }
  EXPECT_EQ(ranks[0].output.find("connected"), std::string::npos);
}

// Room for the slots but not the arenas: connected on every rank, every
// tensor copied in (no arena to adopt into).
TEST(LocalAllReduce, NoRoomForTheArenasConnectsWithoutThem) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "huge-arena"}, 2, kDeadline);
  if (ranks[0].output.find("/dev/shm has no size limit") != std::string::npos) {
    GTEST_SKIP() << "/dev/shm has no size limit here";
  }
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(ranks[r].exit_code, 0) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("connected, arena 0\n"), std::string::npos) << ranks[r].output;
  }
}

// Ranks averaging tensors of different sizes: both fail at once, naming both
// sizes, instead of reading past the smaller tensor.
TEST(LocalAllReduce, RanksWithDifferentSizesFailOnEveryRankNamingBothSizes) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "mismatch"}, 2, kDeadline);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks[r].exit_code, 3) << "rank " << r << ":\n" << ranks[r].output;
    EXPECT_EQ(ranks[r].output.find("averaged"), std::string::npos) << ranks[r].output;
  }
  EXPECT_NE(ranks[0].output.find("rank 1 all-reduces 128 bytes in gradient all-reduce 1 and rank "
                                 "0 64 bytes; the ranks' buckets differ"),
            std::string::npos)
      << ranks[0].output;
  EXPECT_NE(ranks[1].output.find("rank 0 all-reduces 64 bytes in gradient all-reduce 1 and rank "
                                 "1 128 bytes; the ranks' buckets differ"),
            std::string::npos)
      << ranks[1].output;
}

TEST(LocalAllReduce, ARankThatNeverArrivesIsNamedAfterTheTimeout) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "absent"}, 2, kDeadline);
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[0].exit_code, 3) << ranks[0].output;
  EXPECT_FALSE(ranks[0].timed_out);
  EXPECT_LT(ranks[0].seconds, 60.0);
  EXPECT_NE(ranks[0].output.find("rank 1 did not reach gradient all-reduce 1 within 5000 ms "
                                 "(rank 0 waited in shared memory)"),
            std::string::npos)
      << ranks[0].output;
}

TEST(LocalAllReduce, ARankThatExitsIsNamedAtOnceNotAfterTheTimeout) {
  const std::vector<RankResult> ranks =
      run_ranks({local_all_reduce_worker_path(), "dies"}, 2, kDeadline);
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[0].exit_code, 3) << ranks[0].output;
  EXPECT_LT(ranks[0].seconds, 30.0);  // the group's timeout is 60 s
  EXPECT_NE(ranks[0].output.find("rank 1 exited (or destroyed its DistributedDataParallel) "
                                 "before gradient all-reduce 1; rank 0 was waiting for it in "
                                 "shared memory"),
            std::string::npos)
      << ranks[0].output;
}

}  // namespace
}  // namespace devcheck::testing
