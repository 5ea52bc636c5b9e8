// LocalAllReduce's protocol: rank 0 makes a segment in /dev/shm
// (shm_segment.h), the other ranks map it (its name and a random token travel
// through the store), rank 0 unlinks it once every rank has it mapped.
//
// Call s: every rank publishes where its tensor is (in its arena, or copied
// into its slot) and arrives; each rank then sums its own chunk of every
// rank's tensor and writes the mean into that chunk of every rank's tensor;
// every rank says it has reduced. Between the two barriers each chunk is read
// and written by one rank only, and nothing else touches the tensors: a rank
// changes its tensor again (backward, the next copy into its slot) only after
// the second barrier, when every rank is done with it.
#include "distributed/local_all_reduce.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <fmt/format.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "distributed/shm_segment.h"

namespace devcheck::detail {
namespace {

constexpr size_t kLine = ShmSegment::kLine;
static_assert(LocalAllReduce::kAlignment == kLine);

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// Waits while `*word == value`, up to `slice`; a spurious return is fine.
void futex_wait(std::atomic<uint32_t>* word, uint32_t value, std::chrono::microseconds slice) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(slice.count() / 1000000);
  ts.tv_nsec = static_cast<long>(slice.count() % 1000000) * 1000;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): the futex syscall
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, value, &ts, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>* word) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): the futex syscall
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// `sequence` reached by `counter`, modulo 2^32.
bool reached(uint32_t counter, uint32_t sequence) {
  return static_cast<int32_t>(counter - sequence) >= 0;
}

}  // namespace

std::unique_ptr<LocalAllReduce> LocalAllReduce::connect(const ProcessGroup& group,
                                                        size_t capacity_bytes, size_t arena_bytes,
                                                        bool wanted, std::string* declined) {
  const int rank = group.rank();
  const int world = group.world_size();
  const auto decline = [&](std::string why) {
    if (declined != nullptr) *declined = std::move(why);
    return std::unique_ptr<LocalAllReduce>();
  };
  if (world < 2) return decline("a world of one rank has nothing to exchange");
  const size_t capacity = ShmSegment::whole_lines(std::max<size_t>(capacity_bytes, 1));
  size_t arena = ShmSegment::whole_lines(arena_bytes);  // rank 0 may drop it for lack of room
  std::shared_ptr<ShmMapping> mapping;
  std::string setup;  // rank 0: what went wrong making the segment

  // Step 1: rank 0 makes, sizes, maps and stamps the segment; every rank says
  // which machine (boot) it is on.
  std::string name;
  uint64_t token = 0;
  bool created = false;
  if (rank == 0 && wanted) {
    std::random_device random;
    token = (static_cast<uint64_t>(random()) << 32) ^ random();
    name = fmt::format("/devcheck-ddp-{}-{:016x}", ::getpid(), token);
    mapping = ShmSegment::create(name, token, world, capacity, &arena, &created, &setup);
  }
  const std::string me = fmt::format("{} {}", boot_id(), wanted ? "wanted" : "off");
  const std::vector<std::string> hello = group.all_gather_string(
      rank == 0 ? fmt::format("{} {} {:x} {} {}", me, name.empty() ? "-" : name, token, arena,
                              setup.empty() ? "ok" : setup)
                : me);
  // Every rank reads the same answers in the same order: the same verdict.
  std::string problem;
  {
    std::istringstream first(hello[0]);
    std::string machine;
    std::string want;
    std::string token_text;
    std::string status;
    first >> machine >> want >> name >> token_text >> arena;
    std::getline(first >> std::ws, status);
    for (int r = 0; r < world && problem.empty(); ++r) {
      std::istringstream other(hello[static_cast<size_t>(r)]);
      std::string their_machine;
      std::string their_want;
      other >> their_machine >> their_want;
      if (their_want != "wanted") {
        problem =
            fmt::format("rank {} turned it off (DistributedDataParallelOptions::shared_memory)", r);
      } else if (their_machine != machine || machine.empty()) {
        problem = fmt::format("rank {} is not on rank 0's machine", r);
      }
    }
    if (problem.empty() && status != "ok") problem = status;
    if (rank != 0 && problem.empty()) token = std::stoull(token_text, nullptr, 16);
  }
  // Step 2: the other ranks map it and check it is rank 0's (stamped before
  // rank 0's answer reached the store).
  if (rank != 0 && problem.empty()) {
    mapping = ShmSegment::open(name, token, rank, world, capacity, arena, &problem);
  }
  const std::vector<std::string> mapped = group.all_gather_string(problem.empty() ? "ok" : problem);
  // Every rank has mapped it or given up: nothing needs the name any more.
  if (created) ShmSegment::unlink(name);
  problem.clear();  // this rank's own answer is among them, in rank order
  for (const std::string& answer : mapped) {
    if (problem.empty() && answer != "ok") problem = answer;
  }
  if (!problem.empty()) return decline(problem);  // unmapped as `mapping` goes
  TORCH_INTERNAL_ASSERT(mapping != nullptr, "LocalAllReduce: connected without a mapping");
  return std::unique_ptr<LocalAllReduce>(
      new LocalAllReduce(rank, world, capacity, group.timeout(), std::move(mapping)));
}

LocalAllReduce::LocalAllReduce(int rank, int world, size_t capacity,
                               std::chrono::milliseconds timeout,
                               std::shared_ptr<ShmMapping> mapping)
    : rank_(rank),
      world_(world),
      capacity_(capacity),
      timeout_(timeout),
      mapping_(std::move(mapping)),
      base_(mapping_->base()),
      gone_(static_cast<size_t>(world), false) {}

// The mapping goes when the last adopted storage does.
LocalAllReduce::~LocalAllReduce() = default;

size_t LocalAllReduce::arena_capacity() const { return mapping_->arena_bytes(); }

unsigned char* LocalAllReduce::slot(int rank) const {
  return base_ + ShmSegment::slots_offset(world_) + static_cast<size_t>(rank) * capacity_;
}

bool LocalAllReduce::adopt(const at::Tensor& tensor) { return mapping_->adopt(tensor); }

void LocalAllReduce::hold_alive() {
  const int rc = ::pthread_mutex_lock(ShmSegment::alive(base_, world_, rank_));
  if (rc == EOWNERDEAD) ::pthread_mutex_consistent(ShmSegment::alive(base_, world_, rank_));
}

bool LocalAllReduce::gone(int rank) const {
  if (gone_[static_cast<size_t>(rank)]) return true;
  pthread_mutex_t* mutex = ShmSegment::alive(base_, world_, rank);
  const int rc = ::pthread_mutex_trylock(mutex);
  if (rc == 0) {
    ::pthread_mutex_unlock(mutex);  // not held yet: its thread has not started
    return false;
  }
  if (rc == EBUSY) return false;
  gone_[static_cast<size_t>(rank)] = true;  // EOWNERDEAD (now ours, kept) or unrecoverable
  return true;
}

void LocalAllReduce::publish(int which, uint32_t sequence) {
  std::atomic<uint32_t>* word = ShmSegment::counter(base_, world_, which, rank_);
  word->store(sequence, std::memory_order_release);
  futex_wake_all(word);
}

void LocalAllReduce::wait_all(int which, uint32_t sequence, const std::atomic<bool>* stopping,
                              std::chrono::microseconds spin) const {
  using Clock = std::chrono::steady_clock;
  const auto now = Clock::now();
  const auto deadline = now + timeout_;
  const auto spin_until = now + spin;
  for (int r = 0; r < world_; ++r) {
    std::atomic<uint32_t>* word = ShmSegment::counter(base_, world_, which, r);
    // Spin first (until spin_until, for all ranks together), reading the
    // clock every 64 rounds.
    for (uint32_t round = 0; !reached(word->load(std::memory_order_acquire), sequence); ++round) {
      if (round % 64 == 63 && Clock::now() >= spin_until) break;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    // Failures are c10::Error, as c10d's own for a Gloo timeout or a closed
    // peer: not a devcheck::Error category (no argument, device or file is wrong).
    for (;;) {
      const uint32_t seen = word->load(std::memory_order_acquire);
      if (reached(seen, sequence)) break;
      if (stopping != nullptr && stopping->load()) {
        C10_THROW_ERROR(
            Error, fmt::format("[devcheck] DistributedDataParallel: rank {} stopped waiting for "
                               "rank {} in the shared memory all-reduce (the model is being "
                               "destroyed)",
                               rank_, r));
      }
      if (r != rank_ && gone(r) && !reached(word->load(std::memory_order_acquire), sequence)) {
        C10_THROW_ERROR(
            Error, fmt::format("[devcheck] DistributedDataParallel: rank {} exited (or "
                               "destroyed its DistributedDataParallel) before gradient all-reduce "
                               "{}; rank {} was waiting for it in shared memory",
                               r, sequence, rank_));
      }
      if (Clock::now() >= deadline) {
        C10_THROW_ERROR(
            Error,
            fmt::format("[devcheck] DistributedDataParallel: rank {} did not reach gradient "
                        "all-reduce {} within {} ms (rank {} waited in shared memory); a rank "
                        "has died, hangs, or runs a different number of synchronized backward "
                        "passes",
                        r, sequence, timeout_.count(), rank_));
      }
      futex_wait(word, seen, std::chrono::microseconds(50000));
    }
  }
}

namespace {

// Element i of the mean of `ranks` float arrays, written into every array.
inline void mean_element(float* const* where, size_t ranks, int64_t i) {
  float sum = where[0][i];
  for (size_t r = 1; r < ranks; ++r) sum += where[r][i];
  sum /= static_cast<float>(ranks);
  for (size_t r = 0; r < ranks; ++r) where[r][i] = sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void mean_pass_avx2(float* const* where, size_t ranks, int64_t lo,
                                                    int64_t hi) {
  const __m256 count = _mm256_set1_ps(static_cast<float>(ranks));
  int64_t i = lo;
  for (; i + 8 <= hi; i += 8) {
    __m256 sum = _mm256_loadu_ps(where[0] + i);
    for (size_t r = 1; r < ranks; ++r) sum = _mm256_add_ps(sum, _mm256_loadu_ps(where[r] + i));
    sum = _mm256_div_ps(sum, count);
    for (size_t r = 0; r < ranks; ++r) _mm256_storeu_ps(where[r] + i, sum);
  }
  for (; i < hi; ++i) mean_element(where, ranks, i);
}
#endif

// Elements [lo, hi) of every rank's float tensor become their mean in one
// pass: each element is read once from every rank and written once to every
// rank (ATen's add_, div_ and copy_ took three passes over this rank's chunk).
// Summed in rank order, so the result does not depend on which rank reduces.
void mean_into_all(const std::vector<unsigned char*>& where, int64_t lo, int64_t hi) {
  std::vector<float*> arrays(where.size());
  for (size_t r = 0; r < where.size(); ++r) arrays[r] = reinterpret_cast<float*>(where[r]);
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    mean_pass_avx2(arrays.data(), arrays.size(), lo, hi);
    return;
  }
#endif
  for (int64_t i = lo; i < hi; ++i) mean_element(arrays.data(), arrays.size(), i);
}

}  // namespace

void LocalAllReduce::all_reduce_mean(const at::Tensor& tensor, const std::atomic<bool>* stopping,
                                     std::chrono::microseconds spin) {
  const size_t nbytes = tensor.numel() * tensor.element_size();
  auto* data = static_cast<unsigned char*>(tensor.data_ptr());
  const bool in_place = nbytes > 0 && mapping_->in_arena(data, nbytes);
  TORCH_INTERNAL_ASSERT(tensor.is_contiguous() && (in_place || nbytes <= capacity_),
                        "LocalAllReduce: a contiguous tensor, adopted or of at most ", capacity_,
                        " bytes; received ", nbytes);
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const uint32_t sequence = ++sequence_;
  unsigned char* own = in_place ? data : slot(rank_);
  if (!in_place && nbytes > 0) std::memcpy(own, data, nbytes);
  ShmSegment::Counter* arrived = ShmSegment::line(base_, world_, 0, rank_);
  arrived->where = static_cast<uint64_t>(own - base_);
  arrived->bytes = nbytes;
  publish(0, sequence);
  const auto first_wait = Clock::now();
  wait_all(0, sequence, stopping, spin);
  const auto all_arrived = Clock::now();

  // Where every rank's tensor is; the same size everywhere, or no rank
  // reduces anything (each finds the same difference and throws).
  std::vector<unsigned char*> where(static_cast<size_t>(world_));
  for (int r = 0; r < world_; ++r) {
    const ShmSegment::Counter* line = ShmSegment::line(base_, world_, 0, r);
    if (line->bytes != nbytes) {
      C10_THROW_ERROR(
          Error, fmt::format("[devcheck] DistributedDataParallel: rank {} all-reduces {} bytes in "
                             "gradient all-reduce {} and rank {} {} bytes; the ranks' buckets "
                             "differ",
                             r, line->bytes, sequence, rank_, nbytes));
    }
    // A rank's offset lies within the segment, as written by LocalAllReduce.
    TORCH_INTERNAL_ASSERT(
        line->where <= mapping_->bytes() && nbytes <= mapping_->bytes() - line->where,
        "LocalAllReduce: rank ", r, " published a tensor outside the segment");
    where[static_cast<size_t>(r)] = base_ + line->where;
  }

  // Each rank reduces its own chunk (cache-line aligned) of every rank's
  // tensor and writes the mean back into every one.
  const int64_t numel = tensor.numel();
  const auto element = static_cast<int64_t>(tensor.element_size());
  const int64_t align = std::max<int64_t>(1, static_cast<int64_t>(kLine) / element);
  const int64_t per = (numel + world_ - 1) / world_ + align - 1;
  const int64_t chunk = per / align * align;
  const int64_t lo = std::min(numel, rank_ * chunk);
  const int64_t hi = std::min(numel, lo + chunk);
  if (hi > lo && tensor.scalar_type() == at::kFloat) {
    mean_into_all(where, lo, hi);
  } else if (hi > lo) {
    const auto options = at::TensorOptions().dtype(tensor.scalar_type()).device(c10::kCPU);
    const auto view = [&](int r) {
      return at::from_blob(where[static_cast<size_t>(r)] + lo * element, {hi - lo}, options);
    };
    at::Tensor mine = view(rank_);
    for (int r = 0; r < world_; ++r) {
      if (r != rank_) mine.add_(view(r));
    }
    mine.div_(world_);
    for (int r = 0; r < world_; ++r) {
      if (r != rank_) view(r).copy_(mine);
    }
  }
  publish(1, sequence);
  const auto second_wait = Clock::now();
  wait_all(1, sequence, stopping, spin);
  const auto all_reduced = Clock::now();
  if (!in_place && nbytes > 0) std::memcpy(data, own, nbytes);
  const auto ns = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  };
  const int64_t waiting = ns(all_arrived - first_wait) + ns(all_reduced - second_wait);
  waiting_ns_.fetch_add(waiting, std::memory_order_relaxed);
  own_ns_.fetch_add(ns(Clock::now() - started) - waiting, std::memory_order_relaxed);
  calls_.fetch_add(1, std::memory_order_relaxed);
}

GradientSyncTime LocalAllReduce::time() const {
  GradientSyncTime t;
  t.all_reduces = calls_.load(std::memory_order_relaxed);
  t.waiting_seconds = static_cast<double>(waiting_ns_.load(std::memory_order_relaxed)) * 1e-9;
  t.averaging_seconds = static_cast<double>(own_ns_.load(std::memory_order_relaxed)) * 1e-9;
  return t;
}

}  // namespace devcheck::detail
