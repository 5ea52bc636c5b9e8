// The fake accelerator: the fake backend on PyTorch's PrivateUse1 key
// (devices "fake:N"), its device count, and registration.

#include "devcheck/fake_device.h"

#include <fmt/format.h>
#include <torch/library.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "detail/compat.h"
#include "detail/fake_hooks.h"
#include "devcheck/error.h"
#include "fake/backend.h"

namespace devcheck {
namespace detail {
namespace {

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

std::atomic<bool> registered{false};

// Loading the library registers the accelerator's guard (the autograd engine
// sizes its per-device queues from the registered guards once, at the first
// backward of the process) and tells the core where the fake device is.
// Nothing else runs until fake_device() is called.
const bool loaded = [] {
  set_fake_count(FakeKind::kAccelerator, count_setting().count);
  register_fake_guard(FakeKind::kAccelerator);
  FakeDeviceHooks hooks = fake_device_hooks();
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
    detail::register_fake_kernels(detail::FakeKind::kAccelerator);
    detail::register_fake_backend_extras();
    detail::registered.store(true);
  });
  return {c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index)};
}

}  // namespace devcheck
