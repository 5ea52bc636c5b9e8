// The fake backends' memory, shared by the fake accelerator and fake CUDA:
// the allocators (a per-device block cache, as CUDA's caching allocator
// keeps), their memory statistics, the CPU memory of a fake op, and pinned
// host memory.

#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

#include "detail/compat.h"
#include "fake/backend.h"

namespace devcheck::detail {
namespace {

// ---- memory ----------------------------------------------------------------

struct Counters {
  std::atomic<std::int64_t> allocated{0};
  std::atomic<std::int64_t> peak{0};
  std::atomic<std::int64_t> allocated_total{0};
  std::atomic<std::int64_t> freed_total{0};
  std::atomic<std::int64_t> allocations{0};
  std::atomic<std::int64_t> frees{0};
  std::atomic<std::int64_t> blocks{0};
  std::atomic<std::int64_t> peak_blocks{0};
  // The block cache (changed under cache_mutex, read without it).
  std::atomic<std::int64_t> cached{0};
  std::atomic<std::int64_t> cached_blocks{0};
  std::atomic<std::int64_t> peak_reserved{0};
  std::atomic<std::int64_t> peak_segments{0};
  std::atomic<std::int64_t> host_allocations{0};
  std::atomic<std::int64_t> host_frees{0};
  std::atomic<std::int64_t> host_allocated{0};
  std::atomic<std::int64_t> host_freed{0};
};
std::array<std::array<Counters, kMaxFakeDevices>, kFakeKinds> counters;

Counters& counters_of(FakeKind kind, int index) {
  return counters[fake_slot(kind)].at(static_cast<std::size_t>(index));
}

void raise_to(std::atomic<std::int64_t>& peak, std::int64_t now) {
  std::int64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

// Reserved memory (CUDA's term): bytes in tensors plus bytes cached for reuse.
void raise_reserved_peaks(Counters& c) {
  raise_to(c.peak_reserved, c.allocated.load() + c.cached.load());
  raise_to(c.peak_segments, c.blocks.load() + c.cached_blocks.load());
}

void count_allocation(FakeKind kind, c10::DeviceIndex index, std::size_t nbytes) {
  Counters& c = counters_of(kind, index);
  const auto n = static_cast<std::int64_t>(nbytes);
  raise_to(c.peak, c.allocated.fetch_add(n) + n);
  raise_to(c.peak_blocks, c.blocks.fetch_add(1) + 1);
  c.allocated_total.fetch_add(n);
  c.allocations.fetch_add(1);
  raise_reserved_peaks(c);
}

void count_free(FakeKind kind, c10::DeviceIndex index, std::size_t nbytes) {
  Counters& c = counters_of(kind, index);
  const auto n = static_cast<std::int64_t>(nbytes);
  c.allocated.fetch_sub(n);
  c.blocks.fetch_sub(1);
  c.freed_total.fetch_add(n);
  c.frees.fetch_add(1);
}

// ---- the block cache -------------------------------------------------------
//
// Freed blocks of kCacheMinBytes and more stay with their device for reuse,
// as in CUDA's caching allocator, until empty_cache(). Besides the GPU's
// behaviour (memory_reserved() above memory_allocated()), this spares the
// host's allocator: glibc returns large freed blocks to the kernel, and the
// autograd engine runs a device's backward on that device's own thread,
// whose malloc arena trims eagerly, so without a cache every step faults in
// its buffers afresh (about twice the CPU's page faults per training step).
//
// A block is one host allocation: a header, then the bytes (64-byte aligned,
// as c10's CPU allocation is). It serves fake tensors (FakeAllocator) and
// the CPU memory a kernel allocates while it runs a fake op (OpCpuAllocator).

constexpr std::size_t kCacheMinBytes = std::size_t{16} << 10;
// Most bytes a device keeps cached; a block freed beyond it goes back to the host.
constexpr std::int64_t kCacheMaxBytes = std::int64_t{512} << 20;

struct alignas(64) BlockHeader {
  std::size_t capacity;  // the bytes after the header
  std::size_t nbytes;    // what was asked for, and counted when `counted`
  FakeKind kind;
  c10::DeviceIndex index;
  bool counted;  // a fake tensor's block, in the device's allocated bytes
};
static_assert(sizeof(BlockHeader) == 64, "the header keeps 64-byte alignment");

// Sizes round up to 512 bytes (CUDA's smallest block) below 1 MiB and to
// 128 KiB above, so that a size that varies a little still finds its block.
std::size_t round_capacity(std::size_t nbytes) {
  const std::size_t unit = nbytes <= (std::size_t{1} << 20) ? 512 : std::size_t{128} << 10;
  return (nbytes + unit - 1) / unit * unit;
}

struct Pool {
  std::multimap<std::size_t, BlockHeader*> free;  // by capacity
};

std::mutex cache_mutex;

void lock_cache() { cache_mutex.lock(); }
void unlock_cache() { cache_mutex.unlock(); }

// Never destroyed: blocks may be freed while the process exits.
std::array<std::array<Pool, kMaxFakeDevices>, kFakeKinds>& pools() {
  static auto* p = [] {
    // A fork while another thread holds the lock must not leave it held in
    // the child (a DataLoader worker frees tensors too).
    pthread_atfork(&lock_cache, &unlock_cache, &unlock_cache);
    return new std::array<std::array<Pool, kMaxFakeDevices>, kFakeKinds>();
  }();
  return *p;
}

void* header_data(BlockHeader* header) { return header + 1; }
BlockHeader* header_of(void* data) { return static_cast<BlockHeader*>(data) - 1; }

// The blocks handed out as CPU memory of a fake op (OpCpuAllocator) and not
// yet given back: its raw_deleter() gets bare pointers and must tell them
// from those of the allocator it replaced. Under cache_mutex.
std::unordered_set<const void*>& op_blocks() {
  static auto* blocks = new std::unordered_set<const void*>();
  return *blocks;
}

// A new block from host memory.
BlockHeader* new_block(FakeKind kind, c10::DeviceIndex index, std::size_t capacity,
                       std::size_t nbytes, bool counted) {
  auto* header = static_cast<BlockHeader*>(c10::alloc_cpu(sizeof(BlockHeader) + capacity));
  header->capacity = capacity;
  header->nbytes = nbytes;
  header->kind = kind;
  header->index = index;
  header->counted = counted;
  Counters& c = counters_of(kind, index);
  c.host_allocations.fetch_add(1);
  c.host_allocated.fetch_add(static_cast<std::int64_t>(capacity));
  return header;
}

// A block of at least `nbytes` (of 16 KiB or more) for device `index` of
// `kind`: a cached one (at most a quarter larger) or a new one. `counted`:
// a fake tensor's; else an op block (see op_blocks()).
void* take_block(FakeKind kind, c10::DeviceIndex index, std::size_t nbytes, bool counted) {
  const std::size_t capacity = round_capacity(nbytes);
  Counters& c = counters_of(kind, index);
  {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    auto& free = pools()[fake_slot(kind)].at(static_cast<std::size_t>(index)).free;
    const auto it = free.lower_bound(capacity);
    if (it != free.end() && it->first <= capacity + capacity / 4) {
      BlockHeader* header = it->second;
      free.erase(it);
      c.cached.fetch_sub(static_cast<std::int64_t>(header->capacity));
      c.cached_blocks.fetch_sub(1);
      header->nbytes = nbytes;
      header->counted = counted;
      if (!counted) op_blocks().insert(header_data(header));
      return header_data(header);
    }
  }
  BlockHeader* header = new_block(kind, index, capacity, nbytes, counted);
  if (!counted) {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    op_blocks().insert(header_data(header));
  }
  return header_data(header);
}

// A block of below 16 KiB, for a fake tensor: never cached.
void* take_small_block(FakeKind kind, c10::DeviceIndex index, std::size_t nbytes) {
  return header_data(new_block(kind, index, nbytes, nbytes, /*counted=*/true));
}

// Keeps a block for reuse, or gives it back to the host.
void give_block(BlockHeader* header) {
  Counters& c = counters_of(header->kind, header->index);
  if (header->capacity >= kCacheMinBytes) {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    if (!header->counted) op_blocks().erase(header_data(header));
    const auto capacity = static_cast<std::int64_t>(header->capacity);
    if (c.cached.load() + capacity <= kCacheMaxBytes) {
      // First among its size, so that the block freed last, the one most
      // likely still in the CPU's caches, is the one taken next.
      auto& free =
          pools()[fake_slot(header->kind)].at(static_cast<std::size_t>(header->index)).free;
      free.emplace_hint(free.lower_bound(header->capacity), header->capacity, header);
      c.cached.fetch_add(capacity);
      c.cached_blocks.fetch_add(1);
      raise_reserved_peaks(c);
      return;
    }
  }
  c.host_frees.fetch_add(1);
  c.host_freed.fetch_add(static_cast<std::int64_t>(header->capacity));
  c10::free_cpu(header);
}

// The deleter of every block: a fake tensor's and a fake op's CPU memory alike.
void free_block(void* data) {
  if (data == nullptr) return;
  BlockHeader* header = header_of(data);
  if (header->counted) count_free(header->kind, header->index, header->nbytes);
  give_block(header);
}

template <FakeKind K>
struct FakeAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) DEVCHECK_ALLOCATE_CONST override {
    const c10::DeviceIndex index = fake_current_index(K);
    const c10::Device device(device_type_of(K), index);
    if (nbytes == 0) return {nullptr, nullptr, &free_block, device};
    void* data = nbytes < kCacheMinBytes ? take_small_block(K, index, nbytes)
                                         : take_block(K, index, nbytes, /*counted=*/true);
    count_allocation(K, index, nbytes);
    return {data, data, &free_block, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
  // An override from LibTorch 2.3 on (pure there), a plain member before.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    if (count != 0) std::memcpy(dest, src, count);
  }
};

// ---- CPU memory of a fake op -------------------------------------------------
//
// A fake op runs a CPU kernel, which allocates its result and workspace from
// the CPU allocator; the result then becomes the fake tensor's memory
// (fake_adopt). While a thread runs a fake op, OpCpuAllocator (the process's
// CPU allocator once a fake backend registers) serves those allocations from
// the op's device's cache; everything else goes to the allocator it replaced,
// untouched.

struct OpScope {
  FakeKind kind = FakeKind::kAccelerator;
  c10::DeviceIndex index = -1;  // -1: no fake op running on this thread
};
thread_local OpScope tls_op;

c10::Allocator* cpu_allocator_before = nullptr;

void raw_free_cpu(void* data) {
  bool ours = false;
  {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    ours = op_blocks().count(data) != 0;
  }
  if (ours) {
    free_block(data);
  } else {
    const c10::DeleterFnPtr deleter = cpu_allocator_before->raw_deleter();
    TORCH_INTERNAL_ASSERT(deleter != nullptr, "the CPU allocator has no raw deleter");
    deleter(data);
  }
}

struct OpCpuAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) DEVCHECK_ALLOCATE_CONST override {
    const OpScope op = tls_op;
    if (op.index < 0 || nbytes < kCacheMinBytes) return cpu_allocator_before->allocate(nbytes);
    void* data = take_block(op.kind, op.index, nbytes, /*counted=*/false);
    return {data, data, &free_block, c10::Device(c10::kCPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &raw_free_cpu; }
  void copy_data(void* dest, const void* src, std::size_t count) const {
    if (count != 0) std::memcpy(dest, src, count);
  }
};

// What fake_adopt() keeps: the storage that owns the bytes, and what was
// counted (one allocation for both).
struct Adopted {
  c10::Storage owner;
  std::size_t nbytes;
  FakeKind kind;
  c10::DeviceIndex index;
};

void release_adopted(void* ctx) {
  auto* a = static_cast<Adopted*>(ctx);
  count_free(a->kind, a->index, a->nbytes);
  delete a;
}

// ---- pinned host memory ----------------------------------------------------

std::mutex pinned_mutex;
std::unordered_set<const void*>& pinned_blocks() {
  static auto* blocks = new std::unordered_set<const void*>();
  return *blocks;
}

void free_pinned(void* data) {
  {
    const std::lock_guard<std::mutex> lock(pinned_mutex);
    pinned_blocks().erase(data);
  }
  c10::free_cpu(data);
}

struct PinnedAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) DEVCHECK_ALLOCATE_CONST override {
    // One byte at least, so that even an empty pinned tensor has an address
    // that is_pinned() can recognise.
    void* data = c10::alloc_cpu(nbytes == 0 ? 1 : nbytes);
    {
      const std::lock_guard<std::mutex> lock(pinned_mutex);
      pinned_blocks().insert(data);
    }
    return {data, data, &free_pinned, c10::Device(c10::kCPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_pinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const {
    if (count != 0) std::memcpy(dest, src, count);
  }
};

}  // namespace

c10::Allocator* fake_allocator(FakeKind kind) {
  static FakeAllocator<FakeKind::kAccelerator> accelerator;
  static FakeAllocator<FakeKind::kCuda> cuda;
  if (kind == FakeKind::kCuda) return &cuda;
  return &accelerator;
}

c10::DataPtr fake_adopt(FakeKind kind, c10::DeviceIndex index, c10::Storage owner) {
  const std::size_t nbytes = owner.nbytes();
  void* data = DEVCHECK_STORAGE_MUTABLE_DATA(owner);
  count_allocation(kind, index, nbytes);
  auto* ctx = new Adopted{std::move(owner), nbytes, kind, index};
  return {data, ctx, &release_adopted, c10::Device(device_type_of(kind), index)};
}

FakeMemoryStats fake_memory_stats(FakeKind kind, int index) {
  fake_check_index(kind, index, "memory statistics");
  const Counters& c = counters_of(kind, index);
  FakeMemoryStats s;
  s.allocated_bytes = c.allocated.load();
  s.peak_allocated_bytes = c.peak.load();
  s.allocated_bytes_total = c.allocated_total.load();
  s.freed_bytes_total = c.freed_total.load();
  s.allocations = c.allocations.load();
  s.frees = c.frees.load();
  s.blocks = c.blocks.load();
  s.peak_blocks = c.peak_blocks.load();
  s.cached_bytes = c.cached.load();
  s.cached_blocks = c.cached_blocks.load();
  s.reserved_bytes = s.allocated_bytes + s.cached_bytes;
  s.peak_reserved_bytes = std::max(c.peak_reserved.load(), s.reserved_bytes);
  s.segments = s.blocks + s.cached_blocks;
  s.peak_segments = std::max(c.peak_segments.load(), s.segments);
  s.host_allocations = c.host_allocations.load();
  s.host_frees = c.host_frees.load();
  s.host_allocated_bytes = c.host_allocated.load();
  s.host_freed_bytes = c.host_freed.load();
  return s;
}

void fake_reset_peak_memory(FakeKind kind, int index) {
  fake_check_index(kind, index, "reset peak memory statistics");
  Counters& c = counters_of(kind, index);
  c.peak.store(c.allocated.load());
  c.peak_blocks.store(c.blocks.load());
  c.peak_reserved.store(c.allocated.load() + c.cached.load());
  c.peak_segments.store(c.blocks.load() + c.cached_blocks.load());
}

void fake_reset_accumulated_memory(FakeKind kind, int index) {
  fake_check_index(kind, index, "reset accumulated memory statistics");
  Counters& c = counters_of(kind, index);
  c.allocated_total.store(0);
  c.freed_total.store(0);
  c.allocations.store(0);
  c.frees.store(0);
  c.host_allocations.store(0);
  c.host_frees.store(0);
  c.host_allocated.store(0);
  c.host_freed.store(0);
}

void fake_empty_cache(FakeKind kind) {
  std::vector<BlockHeader*> release;
  {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    for (std::size_t i = 0; i < kMaxFakeDevices; ++i) {
      auto& free = pools()[fake_slot(kind)].at(i).free;
      for (const auto& entry : free) release.push_back(entry.second);
      free.clear();
      Counters& c = counters_of(kind, static_cast<int>(i));
      c.cached.store(0);
      c.cached_blocks.store(0);
    }
  }
  for (BlockHeader* header : release) {
    Counters& c = counters_of(header->kind, header->index);
    c.host_frees.fetch_add(1);
    c.host_freed.fetch_add(static_cast<std::int64_t>(header->capacity));
    c10::free_cpu(header);
  }
}

FakeOpScope::FakeOpScope(FakeKind kind, c10::DeviceIndex index) noexcept
    : kind_(tls_op.kind), index_(tls_op.index) {
  tls_op = {kind, index};
}

FakeOpScope::~FakeOpScope() { tls_op = {kind_, index_}; }

void install_fake_op_cpu_allocator() {
  static OpCpuAllocator allocator;
  static std::once_flag once;
  std::call_once(once, [] {
    pools();  // its fork handlers, before any block exists
    cpu_allocator_before = c10::GetCPUAllocator();
    c10::SetCPUAllocator(&allocator, kFakeAllocatorPriority);
  });
}

c10::Allocator* fake_pinned_allocator() {
  static PinnedAllocator allocator;
  return &allocator;
}

bool fake_is_pinned(const void* data) noexcept {
  if (data == nullptr) return false;
  const std::lock_guard<std::mutex> lock(pinned_mutex);
  return pinned_blocks().count(data) != 0;
}

}  // namespace devcheck::detail
