#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "devcheck/distributed.h"
#include "devcheck/error.h"
#include "support/support.h"

namespace devcheck {
namespace {

std::vector<size_t> shard(size_t size, int rank, int world, int64_t epoch, uint64_t seed = 7,
                          bool drop_last = false) {
  DistributedSampler sampler(
      size, DistributedSamplerOptions(rank, world).seed(seed).drop_last(drop_last));
  sampler.set_epoch(epoch);
  std::vector<size_t> all;
  while (auto batch = sampler.next(4)) all.insert(all.end(), batch->begin(), batch->end());
  EXPECT_EQ(all, sampler.indices());
  return all;
}

TEST(DistributedSampler, ShardsAreDisjointAndCoverTheDataset) {
  const std::vector<size_t> a = shard(10, 0, 2, 0);
  const std::vector<size_t> b = shard(10, 1, 2, 0);
  EXPECT_EQ(a.size(), 5u);
  EXPECT_EQ(b.size(), 5u);
  std::set<size_t> seen(a.begin(), a.end());
  for (size_t i : b) EXPECT_TRUE(seen.insert(i).second) << i << " is in both shards";
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(*seen.rbegin(), 9u);
}

TEST(DistributedSampler, UnevenSizesArePaddedToEqualShards) {
  // 10 samples over 3 ranks: 4 each, two samples seen twice (PyTorch's padding).
  std::multiset<size_t> all;
  for (int r = 0; r < 3; ++r) {
    const std::vector<size_t> s = shard(10, r, 3, 0);
    EXPECT_EQ(s.size(), 4u);
    all.insert(s.begin(), s.end());
  }
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(std::set<size_t>(all.begin(), all.end()).size(), 10u);
  EXPECT_EQ(shard(10, 2, 3, 0, 7, /*drop_last=*/true).size(), 3u);
}

TEST(DistributedSampler, EveryRankDrawsTheSamePermutationAndEachEpochAnother) {
  EXPECT_EQ(shard(100, 1, 2, 3), shard(100, 1, 2, 3));
  EXPECT_NE(shard(100, 0, 2, 0), shard(100, 0, 2, 1));
  EXPECT_NE(shard(100, 0, 2, 0, 7), shard(100, 0, 2, 0, 8));
}

TEST(DistributedSampler, IndicesEqualPyTorchsDistributedSampler) {
  ASSERT_TRUE(testing::python_torch_available());
  const testing::ProcessResult py = testing::run_python(
      "import torch.utils.data as d\n"
      "for rank in range(3):\n"
      "  s = d.DistributedSampler(range(11), num_replicas=3, rank=rank, shuffle=True, seed=7)\n"
      "  s.set_epoch(2)\n"
      "  print(' '.join(str(i) for i in s))\n");
  ASSERT_EQ(py.exit_code, 0) << py.output;
  std::istringstream lines(py.output);
  for (int rank = 0; rank < 3; ++rank) {
    std::string line;
    std::getline(lines, line);
    std::ostringstream ours;
    const std::vector<size_t> s = shard(11, rank, 3, 2);
    for (size_t i = 0; i < s.size(); ++i) ours << (i ? " " : "") << s[i];
    EXPECT_EQ(ours.str(), line) << "rank " << rank;
  }
}

TEST(DistributedSampler, RefusesARankOutsideTheWorld) {
  try {
    DistributedSampler(10, DistributedSamplerOptions(2, 2));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("expected 0 <= rank < world_size; received rank 2 of 2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace devcheck
