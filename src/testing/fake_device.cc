// The fake device's runtime: its device guard (current device and stream per
// thread, streams, events), its allocator, and registration.

#include "devcheck/fake_device.h"

#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <fmt/format.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "detail/compat.h"
#include "detail/fake_hooks.h"
#include "devcheck/error.h"
#include "testing/fake_internal.h"

namespace devcheck {
namespace detail {
namespace {

constexpr c10::DeviceType kFake = c10::DeviceType::PrivateUse1;
// Streams a device hands out from its pool (ids 1..kPoolStreams); 0 is the default stream.
constexpr c10::StreamId kPoolStreams = 32;

// DEVCHECK_FAKE_DEVICES, read once: the count, or the reason it is malformed.
struct CountSetting {
  int count = 2;
  std::string error;
};

const CountSetting& count_setting() {
  static const CountSetting setting = [] {
    CountSetting s;
    const char* env = std::getenv("DEVCHECK_FAKE_DEVICES");
    if (env == nullptr || *env == '\0') return s;
    const std::string text(env);
    const bool digits = text.size() == 1 && text[0] >= '1' && text[0] <= '0' + kMaxFakeDevices;
    if (!digits) {
      s.error = fmt::format(
          "[devcheck] invalid DEVCHECK_FAKE_DEVICES='{}': expected a number of fake devices "
          "from 1 to {}",
          text, kMaxFakeDevices);
      s.count = 0;
      return s;
    }
    s.count = text[0] - '0';
    return s;
  }();
  return setting;
}

// The calling thread's current fake device, and its current stream per device.
thread_local c10::DeviceIndex tls_device = 0;
thread_local std::array<c10::StreamId, kMaxFakeDevices> tls_stream{};

std::array<std::atomic<c10::StreamId>, kMaxFakeDevices> pool_next{};

// Every op on the fake device has finished when it returns, so an event is
// complete as soon as it is recorded; it keeps where it was recorded, which
// the guard checks as CUDA's does.
struct FakeEvent {
  c10::DeviceIndex device = -1;
  c10::StreamId stream = 0;
};

void check_index(c10::DeviceIndex index, const char* what) {
  const int count = count_setting().count;
  TORCH_CHECK(index >= 0 && index < count, what, ": fake device index ", static_cast<int>(index),
              " is out of range: this process has ", count, " fake device", count == 1 ? "" : "s",
              " (DEVCHECK_FAKE_DEVICES)");
}

struct FakeGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kFake; }

  c10::Device exchangeDevice(c10::Device device) const override {
    const c10::Device old = getDevice();
    if (device.index() != old.index()) setDevice(device);
    return old;
  }
  c10::Device getDevice() const override { return {kFake, tls_device}; }
  void setDevice(c10::Device device) const override {
    TORCH_CHECK(device.type() == kFake, "fake device guard: expected a fake device, got ", device);
    if (!device.has_index()) return;  // "the current device" is already current
    check_index(device.index(), "set device");
    tls_device = device.index();
  }
  void uncheckedSetDevice(c10::Device device) const noexcept override {
    if (device.has_index() && device.index() >= 0 && device.index() < kMaxFakeDevices) {
      tls_device = device.index();
    }
  }

  c10::Stream getStream(c10::Device device) const noexcept override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device;
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kFake, index),
                       tls_stream.at(static_cast<size_t>(index)));
  }
  c10::Stream getDefaultStream(c10::Device device) const override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device;
    check_index(index, "default stream");
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kFake, index), 0);
  }
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool /*isHighPriority*/) const override {
    const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device;
    check_index(index, "stream from pool");
    const c10::StreamId n = pool_next.at(static_cast<size_t>(index)).fetch_add(1);
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kFake, index), 1 + n % kPoolStreams);
  }
  c10::Stream exchangeStream(c10::Stream stream) const noexcept override {
    const c10::Stream old = getStream(stream.device());
    tls_stream.at(static_cast<size_t>(stream.device_index())) = stream.id();
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
  }
  void block(void* event, const c10::Stream& stream) const override {
    // Work on every stream has finished already: waiting is ordering only.
    if (event == nullptr) return;
    check_index(stream.device_index(), "block on event");
  }
  bool queryEvent(void* /*event*/) const override { return true; }
  void destroyEvent(void* event, const c10::DeviceIndex /*device_index*/) const noexcept override {
    delete static_cast<FakeEvent*>(event);
  }
  bool queryStream(const c10::Stream& /*stream*/) const override { return true; }
  void synchronizeStream(const c10::Stream& /*stream*/) const override {}
  DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES

  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(count_setting().count);
  }
};

// Host memory from c10's CPU allocation, tagged with the current fake device.
struct FakeAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) DEVCHECK_ALLOCATE_CONST override {
    void* data = nbytes == 0 ? nullptr : c10::alloc_cpu(nbytes);
    return {data, data, &c10::free_cpu, c10::Device(kFake, tls_device)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &c10::free_cpu; }
  // An override from LibTorch 2.3 on (pure there), a plain member before.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    if (count != 0) std::memcpy(dest, src, count);
  }
};

std::atomic<bool> registered{false};

// Loading the library registers the guard (the autograd engine sizes its
// per-device queues from the registered guards once, at the first backward
// of the process) and tells the core where the fake device is. Nothing else
// runs until fake_device() is called.
const bool loaded = [] {
  static c10::impl::DeviceGuardImplRegistrar guard(kFake, new FakeGuardImpl());
  FakeDeviceHooks hooks;
  hooks.device = [](int index) { return devcheck::fake_device(index); };
  hooks.count = [] { return devcheck::fake_device_count(); };
  hooks.registered = []() noexcept { return devcheck::fake_device_registered(); };
  set_fake_device_hooks(hooks);
  return true;
}();

// torch.ops.devcheck.register_fake_device(): the way in for Python programs.
int64_t register_for_python() {
  devcheck::fake_device(0);
  return devcheck::fake_device_count();
}

TORCH_LIBRARY_FRAGMENT(devcheck, m) {
  m.def("register_fake_device() -> int", &register_for_python);
}

}  // namespace

c10::Allocator* fake_allocator() {
  static FakeAllocator allocator;
  return &allocator;
}

c10::DeviceIndex fake_current_index() noexcept { return tls_device; }

}  // namespace detail

int fake_device_count() {
  const detail::CountSetting& setting = detail::count_setting();
  if (!setting.error.empty()) throw InvalidArgumentError(setting.error);
  return setting.count;
}

bool fake_device_registered() noexcept { return detail::registered.load(); }

c10::Device fake_device(int index) {
  const int count = fake_device_count();
  if (index < 0 || index >= count) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] fake_device({}): expected an index in [0, {}) ({} fake device{}; "
                    "DEVCHECK_FAKE_DEVICES sets how many, 1 to {})",
                    index, count, count, count == 1 ? "" : "s", detail::kMaxFakeDevices));
  }
  static std::once_flag once;
  std::call_once(once, [] {
    (void)detail::loaded;
    detail::register_fake_kernels();
    detail::registered.store(true);
  });
  return {c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index)};
}

}  // namespace devcheck
