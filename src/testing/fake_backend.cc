// The fake backends' runtime, shared by the fake accelerator and fake CUDA:
// the device guard (current device and stream per thread, streams, events),
// the allocators and their memory statistics, pinned host memory, and the
// per-device generators.

#include "testing/fake_backend.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <unordered_set>
#include <utility>

#include "detail/compat.h"

namespace devcheck::detail {
namespace {

constexpr int kKinds = 2;
constexpr std::size_t slot(FakeKind kind) { return static_cast<std::size_t>(kind); }

// Streams a device hands out from its pool (ids 1..kPoolStreams); 0 is the
// default stream, as CUDA's is.
constexpr c10::StreamId kPoolStreams = 32;

std::array<std::atomic<int>, kKinds> counts{};

// The calling thread's current device per kind, and its current stream per device.
thread_local std::array<c10::DeviceIndex, kKinds> tls_device{};
thread_local std::array<std::array<c10::StreamId, kMaxFakeDevices>, kKinds> tls_stream{};

std::array<std::array<std::atomic<c10::StreamId>, kMaxFakeDevices>, kKinds> pool_next{};

// Every op on a fake device has finished when it returns, so an event is
// complete once recorded; it keeps where and when, for the checks CUDA's
// guard makes and for elapsed times.
struct FakeEvent {
  c10::DeviceIndex device = -1;
  c10::StreamId stream = 0;
  std::chrono::steady_clock::time_point when;
};

template <FakeKind K>
struct FakeGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  static constexpr c10::DeviceType kType = device_type_of(K);

  c10::DeviceType type() const override { return kType; }

  c10::Device exchangeDevice(c10::Device device) const override {
    const c10::Device old = getDevice();
    if (device.index() != old.index()) setDevice(device);
    return old;
  }
  c10::Device getDevice() const override { return {kType, tls_device[slot(K)]}; }
  void setDevice(c10::Device device) const override {
    TORCH_CHECK(device.type() == kType, "fake ", kType, " device guard: expected a ", kType,
                " device, got ", device);
    if (!device.has_index()) return;  // "the current device" is already current
    fake_check_index(K, device.index(), "set device");
    tls_device[slot(K)] = device.index();
  }
  void uncheckedSetDevice(c10::Device device) const noexcept override {
    if (device.has_index() && device.index() >= 0 && device.index() < kMaxFakeDevices) {
      tls_device[slot(K)] = device.index();
    }
  }

  c10::Stream getStream(c10::Device device) const noexcept override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device[slot(K)];
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index),
                       tls_stream[slot(K)].at(static_cast<std::size_t>(index)));
  }
  c10::Stream getDefaultStream(c10::Device device) const override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device[slot(K)];
    fake_check_index(K, index, "default stream");
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index), 0);
  }
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool /*isHighPriority*/) const override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device[slot(K)];
    fake_check_index(K, index, "stream from pool");
    const c10::StreamId n = pool_next[slot(K)].at(static_cast<std::size_t>(index)).fetch_add(1);
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index), 1 + n % kPoolStreams);
  }
  c10::Stream exchangeStream(c10::Stream stream) const noexcept override {
    const c10::Stream old = getStream(stream.device());
    tls_stream[slot(K)].at(static_cast<std::size_t>(stream.device_index())) = stream.id();
    return old;
  }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag /*flag*/) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "Event device index ",
                static_cast<int>(device_index), " does not match recording stream's device index ",
                static_cast<int>(stream.device_index()), ".");
    auto* e = static_cast<FakeEvent*>(*event);
    if (e == nullptr) {
      e = new FakeEvent();
      *event = e;
    }
    e->device = stream.device_index();
    e->stream = stream.id();
    e->when = std::chrono::steady_clock::now();
  }
  void block(void* event, const c10::Stream& stream) const override {
    // Work on every stream has finished already: waiting is ordering only.
    if (event == nullptr) return;
    fake_check_index(K, stream.device_index(), "block on event");
  }
  bool queryEvent(void* /*event*/) const override { return true; }
  void destroyEvent(void* event, const c10::DeviceIndex /*device_index*/) const noexcept override {
    delete static_cast<FakeEvent*>(event);
  }
  bool queryStream(const c10::Stream& /*stream*/) const override { return true; }
  void synchronizeStream(const c10::Stream& /*stream*/) const override {}
  DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES

  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(counts[slot(K)].load());
  }

  // Milliseconds between two recorded events (LibTorch 2.x asks the guard).
  static double elapsed_ms(void* start, void* end) {
    TORCH_CHECK(start != nullptr && end != nullptr,
                "Both events must be recorded before calculating elapsed time.");
    const auto* a = static_cast<const FakeEvent*>(start);
    const auto* b = static_cast<const FakeEvent*>(end);
    return std::chrono::duration<double, std::milli>(b->when - a->when).count();
  }
};

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
};
std::array<std::array<Counters, kMaxFakeDevices>, kKinds> counters;

Counters& counters_of(FakeKind kind, int index) {
  return counters[slot(kind)].at(static_cast<std::size_t>(index));
}

void raise_to(std::atomic<std::int64_t>& peak, std::int64_t now) {
  std::int64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

void count_allocation(FakeKind kind, c10::DeviceIndex index, std::size_t nbytes) {
  Counters& c = counters_of(kind, index);
  const auto n = static_cast<std::int64_t>(nbytes);
  raise_to(c.peak, c.allocated.fetch_add(n) + n);
  raise_to(c.peak_blocks, c.blocks.fetch_add(1) + 1);
  c.allocated_total.fetch_add(n);
  c.allocations.fetch_add(1);
}

void count_free(FakeKind kind, c10::DeviceIndex index, std::size_t nbytes) {
  Counters& c = counters_of(kind, index);
  const auto n = static_cast<std::int64_t>(nbytes);
  c.allocated.fetch_sub(n);
  c.blocks.fetch_sub(1);
  c.freed_total.fetch_add(n);
  c.frees.fetch_add(1);
}

// A block's bookkeeping lives in a header just before its bytes, so the
// DataPtr's context is the data pointer itself (raw_allocate works) and no
// second allocation is made per block. The header keeps the bytes 64-byte
// aligned, as c10's CPU allocation is.
struct alignas(64) BlockHeader {
  std::size_t nbytes;
  FakeKind kind;
  c10::DeviceIndex index;
};
static_assert(sizeof(BlockHeader) == 64, "the header keeps 64-byte alignment");

void free_block(void* data) {
  if (data == nullptr) return;
  auto* header = static_cast<BlockHeader*>(data) - 1;
  count_free(header->kind, header->index, header->nbytes);
  c10::free_cpu(header);
}

template <FakeKind K>
struct FakeAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) DEVCHECK_ALLOCATE_CONST override {
    const c10::DeviceIndex index = tls_device[slot(K)];
    const c10::Device device(device_type_of(K), index);
    if (nbytes == 0) return {nullptr, nullptr, &free_block, device};
    auto* header = static_cast<BlockHeader*>(c10::alloc_cpu(sizeof(BlockHeader) + nbytes));
    header->nbytes = nbytes;
    header->kind = K;
    header->index = index;
    count_allocation(K, index, nbytes);
    void* data = header + 1;
    return {data, data, &free_block, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
  // An override from LibTorch 2.3 on (pure there), a plain member before.
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

int fake_count(FakeKind kind) noexcept { return counts[slot(kind)].load(); }

void set_fake_count(FakeKind kind, int count) noexcept { counts[slot(kind)].store(count); }

c10::DeviceIndex fake_current_index(FakeKind kind) noexcept { return tls_device[slot(kind)]; }

c10::DeviceIndex fake_index_or_current(FakeKind kind, c10::optional<c10::Device> device) noexcept {
  if (device && device->has_index()) return device->index();
  return tls_device[slot(kind)];
}

void fake_check_index(FakeKind kind, int index, const char* what) {
  const int count = fake_count(kind);
  if (index >= 0 && index < count) return;
  if (kind == FakeKind::kCuda) {
    // What a GPU says for an ordinal it does not have (C10_CUDA_CHECK).
    TORCH_CHECK(false, "CUDA error: invalid device ordinal", DEVCHECK_CUDA_CHECK_SUFFIX);
  }
  TORCH_CHECK(false, what, ": fake device index ", index, " is out of range: this process has ",
              count, " fake device", count == 1 ? "" : "s", " (DEVCHECK_FAKE_DEVICES)");
}

void register_fake_guard(FakeKind kind) {
  // Registrars store unconditionally: fake CUDA's guard replaces a CUDA
  // build's own. Kept alive for the process.
  if (kind == FakeKind::kCuda) {
    static c10::impl::DeviceGuardImplRegistrar guard(c10::DeviceType::CUDA,
                                                     new FakeGuardImpl<FakeKind::kCuda>());
  } else {
    static c10::impl::DeviceGuardImplRegistrar guard(c10::DeviceType::PrivateUse1,
                                                     new FakeGuardImpl<FakeKind::kAccelerator>());
  }
}

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
  return s;
}

void fake_reset_peak_memory(FakeKind kind, int index) {
  fake_check_index(kind, index, "reset peak memory statistics");
  Counters& c = counters_of(kind, index);
  c.peak.store(c.allocated.load());
  c.peak_blocks.store(c.blocks.load());
}

void fake_reset_accumulated_memory(FakeKind kind, int index) {
  fake_check_index(kind, index, "reset accumulated memory statistics");
  Counters& c = counters_of(kind, index);
  c.allocated_total.store(0);
  c.freed_total.store(0);
  c.allocations.store(0);
  c.frees.store(0);
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

const at::Generator& fake_generator(FakeKind kind, int index) {
  if (kind == FakeKind::kAccelerator) return at::detail::getDefaultCPUGenerator();
  static std::once_flag once;
  static std::array<at::Generator, kMaxFakeDevices>* generators = nullptr;
  std::call_once(once, [] {
    generators = new std::array<at::Generator, kMaxFakeDevices>();
    for (at::Generator& g : *generators) g = at::detail::createCPUGenerator();
  });
  fake_check_index(kind, index, "generator");
  return generators->at(static_cast<std::size_t>(index));
}

}  // namespace devcheck::detail
