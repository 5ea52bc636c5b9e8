#pragma once
// Which ATen ops the sanitizer treats specially: factories (their outputs get
// an origin), transfers (the ledger), syncs, and the ops whose job is to
// cross devices (never a mismatch). Everything else is checked for one device.

#include <cstdint>
#include <string_view>

namespace devcheck::sanitizer {

enum class OpKind : std::uint8_t {
  kPlain,     // checked: all tensor arguments on one device
  kFactory,   // makes a new tensor: remember where (provenance)
  kTransfer,  // moves data between devices: to, _to_copy, _copy_from (ledger; origin of the result)
  kCopy,      // copy_: the ledger counts it when src and self differ in device
  kPin,       // pin_memory: a host -> pinned host copy, counted in the ledger
  kSync,      // item, _local_scalar_dense, is_nonzero, equal: the host waits for the device
  kCrossDevice,   // takes tensors on several devices by design (set_data, is_pinned)
  kHostArguments  // checked as kPlain, but the arguments in host_arguments may be CPU
                  // tensors (index's indices, a packed sequence's lengths and batch sizes)
};

struct OpInfo {
  OpKind kind = OpKind::kPlain;
  const char* name = nullptr;  // static storage: "aten::ones"; null for kPlain
  // kHostArguments: the arguments that may be on the CPU whatever the op's
  // device, comma-separated ("indices"); null otherwise.
  const char* host_arguments = nullptr;
};

// Whether argument `name` of an op of `info` may be a CPU tensor beside
// tensors on another device.
bool host_argument(const OpInfo& info, std::string_view name);

// Classifies an op by its schema name ("aten::add"). Lock-free, no
// allocation; a few nanoseconds (a hash of the name and one table probe).
OpInfo classify_op(const char* name);

// `name` with static storage, for the ledger's keys: an op's schema string
// lives only as long as its op is registered (a custom op may go away), a
// record_function scope's name only as long as the scope. Takes a lock.
const char* interned(const char* name);

// True when ops of this kind cross devices on purpose (no mismatch check).
inline bool crosses_devices(OpKind kind) {
  return kind == OpKind::kTransfer || kind == OpKind::kCopy || kind == OpKind::kPin ||
         kind == OpKind::kCrossDevice;
}

}  // namespace devcheck::sanitizer
