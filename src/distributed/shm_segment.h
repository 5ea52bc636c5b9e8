#pragma once
// The POSIX shared memory segment of LocalAllReduce (local_all_reduce.h): its
// layout, rank 0 making it in /dev/shm and the other ranks opening it, and a
// process's mapping of it with the allocator of its rank's arena.
//
// Layout: a header, two counters per rank (arrived, reduced; a cache line
// each; futex words; the arrived line also says where the rank's tensor of
// the call is), one robust mutex per rank (held while the rank's reducing
// thread lives), a slot per rank for tensors that are copied in, then an
// arena per rank for the storages ShmMapping::adopt() moves there.

#include <ATen/core/Tensor.h>
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace devcheck::detail {

class ShmMapping;

// The segment's layout, over the address a process mapped it at (`base`).
struct ShmSegment {
  // Slots, arenas and the blocks adopt() takes are whole cache lines of this
  // many bytes (so no two ranks write into one line).
  static constexpr size_t kLine = 64;
  // `n` rounded up to whole lines.
  static size_t whole_lines(size_t n) { return (n + kLine - 1) / kLine * kLine; }

  struct Header {
    uint64_t magic;
    uint64_t token;
    uint64_t world;
    uint64_t capacity;
    uint64_t arena;
  };
  // A rank's counter; the arrived one also carries, for the call it has
  // arrived at, where the rank's tensor starts (bytes from the segment's
  // start) and its size, written before the counter is released.
  struct alignas(kLine) Counter {
    std::atomic<uint32_t> value;
    uint64_t where;
    uint64_t bytes;
  };
  static_assert(sizeof(Header) <= kLine);
  static_assert(sizeof(Counter) == kLine);
  static_assert(std::atomic<uint32_t>::is_always_lock_free);

  // One robust mutex per rank, held by that rank's reducing thread while it
  // lives: a peer that finds it "owner died" knows the rank is gone.
  struct alignas(kLine) Alive {
    pthread_mutex_t mutex;
  };
  static_assert(sizeof(Alive) == kLine);

  static size_t counters_offset() { return kLine; }
  static size_t alive_offset(int world) {
    return counters_offset() + 2 * static_cast<size_t>(world) * sizeof(Counter);
  }
  static size_t slots_offset(int world) {
    return alive_offset(world) + static_cast<size_t>(world) * sizeof(Alive);
  }
  static size_t arenas_offset(int world, size_t capacity) {
    return slots_offset(world) + static_cast<size_t>(world) * capacity;
  }
  // The segment's size for `world` ranks, slots of `capacity` bytes and arenas
  // of `arena` bytes (both whole lines).
  static size_t bytes(int world, size_t capacity, size_t arena) {
    return arenas_offset(world, capacity) + static_cast<size_t>(world) * arena;
  }
  static Header* header(void* base) { return static_cast<Header*>(base); }
  // which: 0 arrived, 1 reduced.
  static Counter* line(void* base, int world, int which, int rank) {
    auto* counters = reinterpret_cast<Counter*>(static_cast<unsigned char*>(base) + kLine);
    return &counters[which * world + rank];
  }
  static std::atomic<uint32_t>* counter(void* base, int world, int which, int rank) {
    return &line(base, world, which, rank)->value;
  }
  static pthread_mutex_t* alive(void* base, int world, int rank) {
    auto* alive = reinterpret_cast<Alive*>(static_cast<unsigned char*>(base) + alive_offset(world));
    return &alive[rank].mutex;
  }

  // Rank 0: creates `name` in /dev/shm (a new name, mode 0600) for `world`
  // ranks' slots of `capacity` bytes and arenas of `*arena` bytes, or of no
  // arenas (`*arena` set to 0) when /dev/shm has room for the slots only;
  // maps it, stamps its header with `token` and makes the alive mutexes.
  // `*created`: whether the name now exists (unlink() it once every rank has
  // opened it). Returns rank 0's mapping, or null with `*problem` saying why.
  static std::shared_ptr<ShmMapping> create(const std::string& name, uint64_t token, int world,
                                            size_t capacity, size_t* arena, bool* created,
                                            std::string* problem);
  // Another rank: opens and maps `name` and checks that it is the segment
  // rank 0 made for these values. Returns `rank`'s mapping, or null with
  // `*problem` saying why.
  static std::shared_ptr<ShmMapping> open(const std::string& name, uint64_t token, int rank,
                                          int world, size_t capacity, size_t arena,
                                          std::string* problem);
  // Removes the name from /dev/shm; the mappings stay.
  static void unlink(const std::string& name);
};

// This process's mapping of the segment and the bookkeeping of its rank's
// arena: unmapped when the last owner (a LocalAllReduce, an adopted storage)
// is gone. Thread-safe.
class ShmMapping : public std::enable_shared_from_this<ShmMapping> {
 public:
  ShmMapping(void* base, size_t bytes, unsigned char* arena, size_t arena_bytes);
  ~ShmMapping();
  ShmMapping(const ShmMapping&) = delete;
  ShmMapping& operator=(const ShmMapping&) = delete;

  unsigned char* base() const { return static_cast<unsigned char*>(base_); }
  size_t bytes() const { return bytes_; }
  // Bytes of this rank's arena (0: none).
  size_t arena_bytes() const { return arena_bytes_; }
  // Whether [data, data + n) lies in this rank's arena.
  bool in_arena(const void* data, size_t n) const {
    const auto* p = static_cast<const unsigned char*>(data);
    return p >= arena_ && p + n <= arena_ + arena_bytes_;
  }

  // First fit, in whole cache lines; the block's offset in the arena, or
  // nothing when no free block is large enough.
  std::optional<size_t> allocate(size_t n);
  // Returns a block, merged with its free neighbours.
  void release(size_t offset, size_t n);

  // LocalAllReduce::adopt(): moves the memory of `tensor`'s storage
  // (contiguous, in host memory, all of it) into a block of the arena, which
  // is released when the storage is freed and keeps this mapping until then.
  // Whether the storage is in the arena (false, changing nothing, when it
  // does not qualify or no free block is large enough).
  bool adopt(const at::Tensor& tensor);

 private:
  // An adopted storage's memory: the DataPtr's context.
  struct Block {
    std::shared_ptr<ShmMapping> mapping;
    size_t offset;
    size_t bytes;
  };
  static void delete_block(void* context);

  void* base_;
  size_t bytes_;
  unsigned char* arena_;  // this rank's
  size_t arena_bytes_;
  std::mutex mutex_;
  std::map<size_t, size_t> free_blocks_;  // offset in the arena -> bytes
};

}  // namespace devcheck::detail
