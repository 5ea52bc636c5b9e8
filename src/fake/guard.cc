// The fake backends' devices, shared by the fake accelerator and fake CUDA:
// how many each kind has, the device guard (current device and stream per
// thread, streams, events) and the per-device generators.

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>

#include "detail/compat.h"
#include "fake/backend.h"

namespace devcheck::detail {
namespace {

// Streams a device hands out from its pool (ids 1..kPoolStreams); 0 is the
// default stream, as CUDA's is.
constexpr c10::StreamId kPoolStreams = 32;

// How many devices each kind has; kCountOnFirstUse until count_on_first_use
// has said (set_fake_count_on_first_use).
constexpr int kCountOnFirstUse = -1;
std::array<std::atomic<int>, kFakeKinds> counts{};
std::array<std::atomic<int (*)() noexcept>, kFakeKinds> count_on_first_use{};
std::mutex first_use_mutex;

// The calling thread's current device per kind, and its current stream per device.
thread_local std::array<c10::DeviceIndex, kFakeKinds> tls_device{};
thread_local std::array<std::array<c10::StreamId, kMaxFakeDevices>, kFakeKinds> tls_stream{};

std::array<std::array<std::atomic<c10::StreamId>, kMaxFakeDevices>, kFakeKinds> pool_next{};

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
  c10::Device getDevice() const override { return {kType, tls_device[fake_slot(K)]}; }
  void setDevice(c10::Device device) const override {
    TORCH_CHECK(device.type() == kType, "fake ", kType, " device guard: expected a ", kType,
                " device, got ", device);
    if (!device.has_index()) return;  // "the current device" is already current
    fake_check_index(K, device.index(), "set device");
    tls_device[fake_slot(K)] = device.index();
  }
  void uncheckedSetDevice(c10::Device device) const noexcept override {
    if (device.has_index() && device.index() >= 0 && device.index() < kMaxFakeDevices) {
      tls_device[fake_slot(K)] = device.index();
    }
  }

  c10::Stream getStream(c10::Device device) const noexcept override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device[fake_slot(K)];
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index),
                       tls_stream[fake_slot(K)].at(static_cast<std::size_t>(index)));
  }
  c10::Stream getDefaultStream(c10::Device device) const override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device[fake_slot(K)];
    fake_check_index(K, index, "default stream");
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index), 0);
  }
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool /*isHighPriority*/) const override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device[fake_slot(K)];
    fake_check_index(K, index, "stream from pool");
    const c10::StreamId n =
        pool_next[fake_slot(K)].at(static_cast<std::size_t>(index)).fetch_add(1);
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index), 1 + n % kPoolStreams);
  }
  c10::Stream exchangeStream(c10::Stream stream) const noexcept override {
    const c10::Stream old = getStream(stream.device());
    tls_stream[fake_slot(K)].at(static_cast<std::size_t>(stream.device_index())) = stream.id();
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
    return static_cast<c10::DeviceIndex>(fake_count(K));
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

}  // namespace

int fake_count(FakeKind kind) noexcept {
  const int count = counts[fake_slot(kind)].load();
  if (count != kCountOnFirstUse) return count;
  const std::lock_guard<std::mutex> lock(first_use_mutex);
  if (counts[fake_slot(kind)].load() == kCountOnFirstUse) {
    counts[fake_slot(kind)].store(count_on_first_use[fake_slot(kind)].load()());
  }
  return counts[fake_slot(kind)].load();
}

void set_fake_count(FakeKind kind, int count) noexcept { counts[fake_slot(kind)].store(count); }

void set_fake_count_on_first_use(FakeKind kind, int (*count)() noexcept) noexcept {
  count_on_first_use[fake_slot(kind)].store(count);
  counts[fake_slot(kind)].store(kCountOnFirstUse);
}

c10::DeviceIndex fake_current_index(FakeKind kind) noexcept { return tls_device[fake_slot(kind)]; }

c10::DeviceIndex fake_index_or_current(FakeKind kind, c10::optional<c10::Device> device) noexcept {
  if (device && device->has_index()) return device->index();
  return tls_device[fake_slot(kind)];
}

void fake_check_index(FakeKind kind, int index, const char* what) {
  const int count = fake_count(kind);
  if (index >= 0 && index < count) return;
  if (kind == FakeKind::kCuda) {
    // What torch's CUDA initialisation says where the process sees no device
    // (CUDA_VISIBLE_DEVICES="").
    TORCH_CHECK(count > 0, kNoCudaDevices);
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
