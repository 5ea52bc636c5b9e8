#include "sanitizer/steps.h"

#include <atomic>
#include <cstring>
#include <memory>

#include "sanitizer/ops.h"

namespace devcheck::sanitizer {
namespace {

constexpr const char kOptimizerScope[] = "Optimizer.";
constexpr const char kCoalescedScope[] = "devcheck.coalesced:";
constexpr int kMaxDirections = 8;

std::atomic<std::uint64_t> epoch{0};

// Trivially destructible (an op may run during thread exit).
struct CoalescedState {
  const char* op;  // interned; null outside a coalesced scope
  int depth;       // nested scopes count once
  int directions;
  c10::DeviceType src_type[kMaxDirections];
  c10::DeviceIndex src_index[kMaxDirections];
  c10::DeviceType dst_type[kMaxDirections];
  c10::DeviceIndex dst_index[kMaxDirections];
};
thread_local CoalescedState coalesced = {nullptr, 0, 0, {}, {}, {}, {}};

bool starts_with(const char* text, const char* prefix) {
  return text != nullptr && std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

// Marks the scope that opened a coalesced transfer, so its end closes it.
struct OpenedCoalesced : at::ObserverContext {};

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    epoch.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  const char* name = fn.name();
  if (starts_with(name, kOptimizerScope)) {
    epoch.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  if (!starts_with(name, kCoalescedScope)) return nullptr;
  if (coalesced.depth++ == 0) {
    coalesced.op = interned(name + std::strlen(kCoalescedScope));
    coalesced.directions = 0;
  }
  return std::make_unique<OpenedCoalesced>();
}

void on_end(const at::RecordFunction& /*fn*/, at::ObserverContext* context) {
  if (context == nullptr || coalesced.depth == 0) return;
  if (--coalesced.depth == 0) coalesced.op = nullptr;
}

}  // namespace

std::uint64_t step_epoch() { return epoch.load(std::memory_order_relaxed); }

const char* coalesced_op() { return coalesced.op; }

bool first_of_coalesced(c10::Device src, c10::Device dst) {
  CoalescedState& c = coalesced;
  for (int i = 0; i < c.directions; ++i) {
    if (c.src_type[i] == src.type() && c.src_index[i] == src.index() &&
        c.dst_type[i] == dst.type() && c.dst_index[i] == dst.index()) {
      return false;
    }
  }
  if (c.directions < kMaxDirections) {
    c.src_type[c.directions] = src.type();
    c.src_index[c.directions] = src.index();
    c.dst_type[c.directions] = dst.type();
    c.dst_index[c.directions] = dst.index();
    ++c.directions;
  }
  return true;
}

at::CallbackHandle add_step_callback() {
  return at::addGlobalCallback(
      at::RecordFunctionCallback(&on_start, &on_end)
          .scopes({at::RecordScope::BACKWARD_FUNCTION, at::RecordScope::USER_SCOPE}));
}

}  // namespace devcheck::sanitizer
