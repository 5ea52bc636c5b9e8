// Fake CUDA's answers to torch's profiler. Asked for CUDA time
// (torch.autograd.profiler.profile(use_cuda=True) or use_device="cuda", the
// legacy profiler's CUDA state, Kineto's GPU fallback, emit_nvtx), the
// profiler asks its "CUDA stubs" to record an event on the current device
// beside each op's CPU time, then for the time between two events. A CPU
// build's stubs fail every call ("Failed to record CUDA event. CUDA used in
// profiler but not enabled.", logged with a stack trace per op), a CUDA
// build's call the driver. Fake CUDA runs every kernel on the host, in order,
// when it is launched: an event's time is the host clock when it is
// recorded, so the time between two is the device time of what ran between
// them, as on a GPU whose stream was idle. NVTX marks and ranges go nowhere
// (no NVTX tool can attach to fake CUDA).

#include <c10/core/Device.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "fake/backend.h"
#include "fake/cuda/profiler.h"

namespace devcheck::detail {
namespace {

using torch::profiler::impl::ProfilerStubs;
using EventIndex = ProfilerRecord::Device;
using Event = ProfilerRecord::Event;

// What an event holds: when it was recorded, on the host's steady clock.
struct FakeEvent {
  std::chrono::steady_clock::time_point when;
};

Event make_event() {
  using Element = typename Event::element_type;
  auto* fake = new FakeEvent{std::chrono::steady_clock::now()};
  // Event's element type is opaque (CUevent_st, void): only this file makes
  // and reads its pointers.
  return Event(reinterpret_cast<Element*>(fake),
               [](Element* p) { delete reinterpret_cast<FakeEvent*>(p); });
}

const FakeEvent& event_of(const Event* event, const char* which) {
  TORCH_CHECK(event != nullptr && *event, "[devcheck] fake_cuda: the profiler's ", which,
              " CUDA event was never recorded");
  return *reinterpret_cast<const FakeEvent*>(event->get());
}

// torch's profiler clock for an op's CPU time (getTime(), CLOCK_REALTIME in
// every version), so an event's CPU time lines up with the op's.
int64_t profiler_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

struct FakeCudaProfilerStubs final : ProfilerStubs {
  void record(EventIndex* device, Event* event, int64_t* cpu_ns) const override {
    if (device != nullptr) {
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): a device index, never negative.
      *device = static_cast<EventIndex>(fake_current_index(FakeKind::kCuda));
    }
    if (cpu_ns != nullptr) *cpu_ns = profiler_cpu_ns();
    if (event != nullptr) *event = make_event();
  }
  // Microseconds, as CUDA's stubs return them (cudaEventElapsedTime's
  // milliseconds times 1000).
  float elapsed(const Event* event, const Event* event2) const override {
    const auto from = event_of(event, "first").when;
    const auto to = event_of(event2, "second").when;
    return std::chrono::duration<float, std::micro>(to - from).count();
  }
  void mark(const char* /*name*/) const override {}
  void rangePush(const char* /*name*/) const override {}
  void rangePop() const override {}
  bool enabled() const override { return true; }
  void onEachDevice(std::function<void(int)> op) const override {
    c10::OptionalDeviceGuard guard;
    const int count = devcheck::fake_cuda_count();
    for (int i = 0; i < count; ++i) {
      guard.reset_device(c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(i)));
      op(i);
    }
  }
  // Every kernel has finished when its launch returns.
  void synchronize() const override {}
};

}  // namespace

void register_fake_cuda_profiler() {
  static FakeCudaProfilerStubs stubs;
  torch::profiler::impl::registerCUDAMethods(&stubs);
}

}  // namespace devcheck::detail
