// LocalAllReduce's segment (src/distributed/shm_segment.h) in one process:
// rank 0 making it, another rank's mapping of it and the checks that mapping
// makes, and the allocator of a rank's arena.
#include "distributed/shm_segment.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

namespace devcheck::detail {
namespace {

constexpr size_t kLine = ShmSegment::kLine;

// A name in /dev/shm for one test, removed at its end.
struct SegmentName {
  explicit SegmentName(const std::string& what)
      : path("/devcheck-test-" + std::to_string(::getpid()) + "-" + what) {}
  ~SegmentName() { ShmSegment::unlink(path); }
  SegmentName(const SegmentName&) = delete;
  SegmentName& operator=(const SegmentName&) = delete;
  std::string path;
};

// Rank 0's mapping of a new segment for two ranks, slots of one line and
// arenas of `arena` bytes.
std::shared_ptr<ShmMapping> make(const SegmentName& name, size_t arena) {
  bool created = false;
  std::string problem;
  auto mapping = ShmSegment::create(name.path, 42, 2, kLine, &arena, &created, &problem);
  EXPECT_TRUE(created);
  EXPECT_NE(mapping, nullptr) << problem;
  return mapping;
}

TEST(ShmSegment, AnotherRankMapsWhatRankZeroMadeAndHasItsOwnArena) {
  const SegmentName name("maps");
  const std::shared_ptr<ShmMapping> zero = make(name, 2 * kLine);
  ASSERT_NE(zero, nullptr);
  std::string problem;
  const std::shared_ptr<ShmMapping> one =
      ShmSegment::open(name.path, 42, 1, 2, kLine, 2 * kLine, &problem);
  ASSERT_NE(one, nullptr) << problem;
  EXPECT_EQ(problem, "");
  EXPECT_EQ(one->bytes(), ShmSegment::bytes(2, kLine, 2 * kLine));
  EXPECT_EQ(ShmSegment::header(one->base())->token, 42U);
  // One memory, two mappings: what rank 0 writes, rank 1 reads.
  ShmSegment::counter(zero->base(), 2, 1, 1)->store(7);
  EXPECT_EQ(ShmSegment::counter(one->base(), 2, 1, 1)->load(), 7U);
  // Rank 1's arena lies after rank 0's.
  const size_t arenas = ShmSegment::arenas_offset(2, kLine);
  EXPECT_TRUE(zero->in_arena(zero->base() + arenas, 2 * kLine));
  EXPECT_FALSE(zero->in_arena(zero->base() + arenas + kLine, 2 * kLine));
  EXPECT_FALSE(one->in_arena(one->base() + arenas, 2 * kLine));
  EXPECT_TRUE(one->in_arena(one->base() + arenas + 2 * kLine, 2 * kLine));
}

TEST(ShmSegment, ASegmentMadeForOtherValuesIsNotTaken) {
  const SegmentName name("checks");
  const std::shared_ptr<ShmMapping> zero = make(name, 0);
  ASSERT_NE(zero, nullptr);
  std::string problem;
  EXPECT_EQ(ShmSegment::open(name.path, 43, 1, 2, kLine, 0, &problem), nullptr);
  EXPECT_EQ(problem, "rank 1 opened " + name.path + ", which is not rank 0's segment");
  EXPECT_EQ(ShmSegment::open(name.path, 42, 2, 3, kLine, 0, &problem), nullptr);
  EXPECT_EQ(problem, "rank 2 found " + name.path + " with another size");
}

TEST(ShmSegment, ANameIsMadeOnceAndOpensUntilItIsUnlinked) {
  const SegmentName name("once");
  const std::shared_ptr<ShmMapping> zero = make(name, 0);
  ASSERT_NE(zero, nullptr);
  size_t arena = 0;
  bool created = true;
  std::string problem;
  EXPECT_EQ(ShmSegment::create(name.path, 42, 2, kLine, &arena, &created, &problem), nullptr);
  EXPECT_FALSE(created);
  EXPECT_EQ(problem,
            "rank 0 cannot create " + name.path + " in /dev/shm: " + std::strerror(EEXIST));
  ShmSegment::unlink(name.path);
  EXPECT_EQ(ShmSegment::open(name.path, 42, 1, 2, kLine, 0, &problem), nullptr);
  EXPECT_EQ(problem, "rank 1 cannot open " + name.path + " in /dev/shm: " + std::strerror(ENOENT));
  // The mapping outlives the name.
  ShmSegment::counter(zero->base(), 2, 0, 0)->store(3);
  EXPECT_EQ(ShmSegment::counter(zero->base(), 2, 0, 0)->load(), 3U);
}

TEST(ShmMapping, AllocatesWholeLinesFirstFitAndMergesFreedNeighbours) {
  const SegmentName name("blocks");
  const std::shared_ptr<ShmMapping> m = make(name, 4 * kLine);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->arena_bytes(), 4 * kLine);
  EXPECT_EQ(m->allocate(1), std::optional<size_t>(0));
  EXPECT_EQ(m->allocate(kLine), std::optional<size_t>(kLine));
  EXPECT_EQ(m->allocate(kLine + 1), std::optional<size_t>(2 * kLine));  // two lines
  EXPECT_EQ(m->allocate(1), std::nullopt);
  m->release(kLine, kLine);
  EXPECT_EQ(m->allocate(2 * kLine), std::nullopt);  // one free line, between used ones
  m->release(0, 1);                                 // merged with the free line after it
  EXPECT_EQ(m->allocate(2 * kLine), std::optional<size_t>(0));
  m->release(0, 2 * kLine);
  m->release(2 * kLine, kLine + 1);  // merged with the free block before it
  EXPECT_EQ(m->allocate(4 * kLine), std::optional<size_t>(0));
}

TEST(ShmMapping, AnAdoptedStorageLivesInTheArenaAndKeepsTheMapping) {
  const SegmentName name("adopt");
  std::shared_ptr<ShmMapping> m = make(name, 4 * kLine);
  ASSERT_NE(m, nullptr);
  at::Tensor t = at::arange(16, at::kFloat);  // one line
  at::Tensor view = t.view({4, 4});
  EXPECT_FALSE(m->adopt(t.slice(0, 1)));          // not the whole storage
  EXPECT_FALSE(m->adopt(at::ones({4 * kLine})));  // larger than the arena
  ASSERT_TRUE(m->adopt(t));
  EXPECT_TRUE(m->in_arena(t.data_ptr(), kLine));
  EXPECT_EQ(view.data_ptr(), t.data_ptr());  // the storage kept, its memory moved
  EXPECT_TRUE(at::equal(t, at::arange(16, at::kFloat)));
  EXPECT_TRUE(m->adopt(view));  // already there
  const std::weak_ptr<ShmMapping> weak = m;
  m.reset();
  EXPECT_FALSE(weak.expired());
  t.add_(1);
  EXPECT_TRUE(at::equal(view.flatten(), at::arange(1, 17, at::kFloat)));
  t = at::Tensor();
  EXPECT_FALSE(weak.expired());  // the view holds the storage
  // Freeing the storage returns its block and, the last owner gone, unmaps.
  view = at::Tensor();
  EXPECT_TRUE(weak.expired());
}

}  // namespace
}  // namespace devcheck::detail
