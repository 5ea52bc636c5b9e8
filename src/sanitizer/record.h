#pragma once
// What the watch (watch.cc) records of an op besides checking it: a device
// mismatch, with every argument's name, device and origin and where the op
// ran; a copy between devices or into pinned memory; a sync, the host waiting
// for a device; the span of either on the trace. Few ops do any of these
// (most compute on one device and only pass the watch's check), so they live
// apart from the watch's hot path.

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/util/ArrayRef.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "sanitizer/engine.h"
#include "sanitizer/ops.h"
#include "sanitizer/stack.h"

namespace devcheck::sanitizer {

// What a watched op moves between devices or waits for: the ledger's entry
// and, when tracing, the span around the op.
struct Movement {
  const char* op = nullptr;  // static storage (ops.h: interned)
  SiteId site = kNoSite;
  std::uint64_t bytes = 0;
  c10::Device src = c10::Device(c10::kCPU);
  c10::Device dst = c10::Device(c10::kCPU);
  bool traced = false;  // set by the record_* below when the session traces
};

// The tensor at inputs[index] when it is a defined one; null otherwise.
inline const at::Tensor* first_tensor(c10::ArrayRef<const c10::IValue> inputs, std::size_t index) {
  if (inputs.size() <= index || !inputs[index].isTensor()) return nullptr;
  const at::Tensor& t = inputs[index].toTensor();
  return t.defined() ? &t : nullptr;
}

// Whether the op's bool argument `name` is there and true.
bool bool_argument(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                   const char* name);

// Records a mismatch: the op of `schema` ran on `inputs`, whose tensors are
// on several devices. Warns, or has the session fail at exit, as its mode
// says. Returns the mismatch's index in Engine::mismatches().
std::size_t record_mismatch(const c10::FunctionSchema& schema,
                            c10::ArrayRef<const c10::IValue> inputs, const OpInfo& info, Engine& e);

// The ledger's entries of one op, named m.op (the caller's), filled into `m`.
// `op_index`: the thread's op count so far (CopyEvent::op_index).

// self.copy_(src): a transfer when they are on different devices.
void record_copy(const at::Tensor& self, const at::Tensor& src, bool non_blocking,
                 std::uint64_t op_index, Engine& e, Movement& m);
// to(), _to_copy(), _copy_from(): a transfer when its destination is another device.
void record_transfer(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                     std::uint64_t op_index, Engine& e, Movement& m);
// pin_memory(): a host to pinned host copy.
void record_pin(c10::ArrayRef<const c10::IValue> inputs, std::uint64_t op_index, Engine& e,
                Movement& m);
// The host reads a value of `self`: a sync unless `self` is on the host.
void record_sync(const at::Tensor& self, Engine& e, Movement& m);

// Now on the steady clock, in microseconds: the start of a traced span.
inline double now_us() {
  const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double, std::micro>(since_epoch).count();
}

// Adds m's span on the trace ("copy" or "sync"), from start_us to now.
void add_event(const Movement& m, const char* what, double start_us, Engine& e);

}  // namespace devcheck::sanitizer
