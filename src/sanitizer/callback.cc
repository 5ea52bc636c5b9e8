// The RecordFunction callbacks: the hot path of the sanitizer. Every ATen op
// on every thread passes through on_op_start/on_op_end, so the common case
// (an op whose tensors agree) allocates nothing and takes no lock.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "sanitizer/engine.h"
#include "sanitizer/ops.h"
#include "sanitizer/report.h"

// record_function.h changes RecordFunction's layout and adds asserts when
// NDEBUG is unset; LibTorch is built with it, so this file must be too.
#ifndef NDEBUG
#error "src/sanitizer/callback.cc must be compiled with NDEBUG (see src/sanitizer/module.cmake)"
#endif

namespace devcheck::sanitizer {
namespace {

constexpr std::uint32_t kNotSuppressed = ~0U;
constexpr int kMaxPending = 16;

// What the end callback needs from the start callback of the same op.
struct Pending {
  const at::RecordFunction* fn;
  OpKind kind;
  const char* op;
  std::uint32_t depth;
  SiteId site;
  bool record_origin;
  bool traced;
  double start_us;
  std::uint64_t bytes;
  // Devices as raw parts: c10::Device has no constant initializer, and this
  // must be constant-initialized thread-local data.
  c10::DeviceType src_type;
  c10::DeviceIndex src_index;
  c10::DeviceType dst_type;
  c10::DeviceIndex dst_index;
  const void* input_storage;  // compared, never dereferenced

  c10::Device src() const { return c10::Device(src_type, src_index); }
  c10::Device dst() const { return c10::Device(dst_type, dst_index); }
  void set_src(c10::Device d) {
    src_type = d.type();
    src_index = d.index();
  }
  void set_dst(c10::Device d) {
    dst_type = d.type();
    dst_index = d.index();
  }
};

// Trivially destructible on purpose: an op may run during thread exit, after
// non-trivial thread_locals are gone.
// A direct-mapped cache of classify_op() by name pointer. Dispatcher ops name
// themselves with their schema's string, whose address is stable while the op
// is registered, so a pointer names one op. Only records named by a temporary
// string (c10d collectives, user scopes) can share an address with another
// name, and those are all plain ops, as is anything registered after start-up
// in reused memory: a stale slot can only say "plain" to a plain op.
constexpr int kOpCacheSlots = 64;
struct OpCacheSlot {
  const char* name;
  OpInfo info;
};

// Op counts are flushed to the engine in batches: one shared atomic per op
// would be the hottest line of the callback.
constexpr std::uint64_t kOpFlushEvery = 256;

struct ThreadState {
  std::uint32_t depth;
  std::uint32_t suppress_depth;  // checks are off while depth > suppress_depth
  std::uint64_t ops;
  std::uint64_t ops_unflushed;
  std::uint64_t generation;  // of last_mismatch
  long last_mismatch;
  int pending_count;
  Pending pending[kMaxPending];
  OpCacheSlot op_cache[kOpCacheSlots];
};

thread_local ThreadState tls = {0, kNotSuppressed, 0, 0, 0, -1, 0, {}, {}};

OpInfo classify_cached(ThreadState& t, const char* name) {
  if (name == nullptr) return {};
  OpCacheSlot& slot = t.op_cache[(reinterpret_cast<std::uintptr_t>(name) >> 3) % kOpCacheSlots];
  if (slot.name != name) {
    slot.name = name;
    slot.info = classify_op(name);
  }
  return slot.info;
}

std::uint64_t thread_key() {
  static thread_local const std::uint64_t key =
      std::hash<std::thread::id>()(std::this_thread::get_id());
  return key;
}

double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

// The one-device rule: every defined tensor on one device, 0-dim CPU tensors
// (wrapped scalars) allowed anywhere.
struct DeviceScan {
  bool have = false;
  bool mismatch = false;
  c10::Device first = c10::Device(c10::kCPU);

  void add(const at::Tensor& t) {
    if (!t.defined()) return;
    const c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    const c10::Device d = impl->device();
    if (have && d == first) return;
    if (d.is_cpu() && impl->dim() == 0) return;
    if (!have) {
      have = true;
      first = d;
      return;
    }
    mismatch = true;
  }
  void add(const c10::IValue& v) {
    if (v.isTensor()) {
      add(v.toTensor());
    } else if (v.isList()) {
      for (const c10::IValue& e : v.toListRef()) {
        if (e.isTensor()) add(e.toTensor());
      }
    }
  }
};

const at::Tensor* first_tensor(c10::ArrayRef<const c10::IValue> values, std::size_t index) {
  if (values.size() <= index || !values[index].isTensor()) return nullptr;
  const at::Tensor& t = values[index].toTensor();
  return t.defined() ? &t : nullptr;
}

std::uint64_t nbytes(const at::Tensor& t) {
  return static_cast<std::uint64_t>(t.numel()) * t.element_size();
}

void note_arg(const at::Tensor& t, std::string name, std::vector<ArgRecord>& args, Engine& e) {
  if (!t.defined()) return;
  ArgRecord a;
  a.name = std::move(name);
  a.device = t.device();
  a.dtype = t.scalar_type();
  a.shape = t.sizes().vec();
  if (e.provenance_on.load(std::memory_order_relaxed) && t.has_storage()) {
    if (auto origin = e.provenance.find(t.storage().unsafeGetStorageImpl())) {
      a.origin_known = true;
      a.origin = *origin;
    }
  }
  args.push_back(std::move(a));
}

// The rare path: tensors on several devices. Records the finding with every
// argument's name, device and origin, and where the op ran.
void record_mismatch(const at::RecordFunction& fn, c10::ArrayRef<const c10::IValue> inputs,
                     Engine& e, ThreadState& t) {
  MismatchRecord record;
  record.op = fn.name();
  std::vector<std::string> names;
  if (auto schema = fn.operator_schema()) {
    for (const auto& arg : schema->arguments()) names.push_back(arg.name());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string name = i < names.size() ? names[i] : "input" + std::to_string(i);
    const c10::IValue& v = inputs[i];
    if (v.isTensor()) {
      note_arg(v.toTensor(), name, record.args, e);
    } else if (v.isList()) {
      const auto list = v.toListRef();
      for (std::size_t j = 0; j < list.size(); ++j) {
        if (list[j].isTensor()) {
          note_arg(list[j].toTensor(), name + "[" + std::to_string(j) + "]", record.args, e);
        }
      }
    }
  }
  // The op's device: the one most tensors are on; ties go to the accelerator
  // (a stray is usually a CPU tensor made without device=).
  std::vector<std::pair<c10::Device, int>> counts;
  for (const auto& a : record.args) {
    if (a.device.is_cpu() && a.shape.empty()) continue;
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == a.device; });
    if (it == counts.end()) {
      counts.emplace_back(a.device, 1);
    } else {
      ++it->second;
    }
  }
  if (!counts.empty()) {
    auto best = counts.begin();
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      if (it->second > best->second ||
          (it->second == best->second && best->first.is_cpu() && !it->first.is_cpu())) {
        best = it;
      }
    }
    record.expected = best->first;
  }
  for (auto& a : record.args) {
    a.stray = a.device != record.expected && !(a.device.is_cpu() && a.shape.empty());
  }
  record.site = capture_site();
  const auto [index, is_new] = e.add_mismatch(std::move(record));
  t.generation = e.generation();
  t.last_mismatch = static_cast<long>(index);
  const auto mode = static_cast<SanitizerMode>(e.mode.load(std::memory_order_relaxed));
  if (mode == SanitizerMode::kFail) e.fail_requested.store(true);
  if (is_new && mode != SanitizerMode::kReport) {
    Engine::warn(make_mismatch_finding(e.mismatch(index)).message);
  }
}

void record_copy(c10::ArrayRef<const c10::IValue> inputs, Engine& e, ThreadState& t, Pending& p) {
  // copy_(Tensor self, Tensor src, bool non_blocking)
  const at::Tensor* self = first_tensor(inputs, 0);
  const at::Tensor* src = first_tensor(inputs, 1);
  if (self == nullptr || src == nullptr || self->device() == src->device()) return;
  const bool non_blocking = inputs.size() > 2 && inputs[2].isBool() && inputs[2].toBool();
  const bool sync = self->is_cpu() && !src->is_cpu() && !src->is_meta() && !non_blocking;
  p.bytes = nbytes(*src);
  p.set_src(src->device());
  p.set_dst(self->device());
  p.site = capture_site();
  const std::uint64_t small_bytes = e.small_copy_bytes.load(std::memory_order_relaxed);
  const bool flagged = e.ledger.add_transfer(TransferKey{p.site, p.op, p.src(), p.dst(), false},
                                             p.bytes, sync, thread_key(), t.ops, small_bytes,
                                             e.burst_ops.load(std::memory_order_relaxed),
                                             e.small_copy_count.load(std::memory_order_relaxed));
  if (sync) e.ledger.add_sync(SyncKey{p.site, p.op, p.src()});
  p.traced = e.trace_on.load(std::memory_order_relaxed);
  const auto mode = static_cast<SanitizerMode>(e.mode.load(std::memory_order_relaxed));
  if (flagged && mode != SanitizerMode::kReport) {
    for (const auto& f : make_copy_findings(e)) {
      if (f.second == p.site) Engine::warn(f.first.message);
    }
  }
}

void record_pin(c10::ArrayRef<const c10::IValue> inputs, Engine& e, ThreadState& t, Pending& p) {
  const at::Tensor* self = first_tensor(inputs, 0);
  if (self == nullptr || !self->is_cpu()) return;
  p.bytes = nbytes(*self);
  p.set_src(self->device());
  p.set_dst(self->device());
  p.site = capture_site();
  e.ledger.add_transfer(TransferKey{p.site, p.op, p.src(), p.dst(), true}, p.bytes, false,
                        thread_key(), t.ops, 0, 0, ~0ULL);
  p.traced = e.trace_on.load(std::memory_order_relaxed);
}

void record_sync(c10::ArrayRef<const c10::IValue> inputs, Engine& e, Pending& p) {
  const at::Tensor* self = first_tensor(inputs, 0);
  if (self == nullptr || self->is_cpu()) return;  // a CPU item() waits for nothing
  p.set_src(self->device());
  p.set_dst(c10::Device(c10::kCPU));
  p.bytes = nbytes(*self);
  p.site = capture_site();
  e.ledger.add_sync(SyncKey{p.site, p.op, p.src()});
  p.traced = e.trace_on.load(std::memory_order_relaxed);
}

}  // namespace

void flush_op_count() {
  ThreadState& t = tls;
  Engine::get().ops_checked.fetch_add(t.ops_unflushed, std::memory_order_relaxed);
  t.ops_unflushed = 0;
}

long last_mismatch_on_this_thread() {
  const ThreadState& t = tls;
  return t.generation == Engine::get().generation() ? t.last_mismatch : -1;
}

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  ThreadState& t = tls;
  const std::uint32_t depth = t.depth++;
  ++t.ops;
  Engine& e = Engine::get();
  if (!e.active()) return nullptr;
  if (++t.ops_unflushed >= kOpFlushEvery) {
    e.ops_checked.fetch_add(t.ops_unflushed, std::memory_order_relaxed);
    t.ops_unflushed = 0;
  }
  const OpInfo info = classify_cached(t, fn.name());
  const c10::ArrayRef<const c10::IValue> inputs = fn.inputs();
  const bool checking = t.suppress_depth == kNotSuppressed || depth <= t.suppress_depth;

  if (crosses_devices(info.kind)) {
    if (checking) t.suppress_depth = depth;  // their insides move data on purpose
  } else if (checking) {
    DeviceScan scan;
    for (const c10::IValue& v : inputs) scan.add(v);
    if (C10_UNLIKELY(scan.mismatch)) {
      t.suppress_depth = depth;  // report the outermost op only
      record_mismatch(fn, inputs, e, t);
    }
  }
  if (info.kind == OpKind::kPlain || info.kind == OpKind::kCrossDevice) return nullptr;

  Pending p{&fn, info.kind, info.name, depth, kNoSite,   false, false,
            0.0, 0,         c10::kCPU, -1,    c10::kCPU, -1,    nullptr};
  switch (info.kind) {
    case OpKind::kCopy:
      record_copy(inputs, e, t, p);
      break;
    case OpKind::kPin:
      if (depth == 0) record_pin(inputs, e, t, p);
      break;
    case OpKind::kSync:
      record_sync(inputs, e, p);
      break;
    case OpKind::kFactory:
    case OpKind::kTransfer:
      // Only the outermost op: the empty() inside ones() or _to_copy() is not the user's.
      if (depth == 0 && e.provenance_on.load(std::memory_order_relaxed)) {
        p.record_origin = true;
        p.site = capture_site();
        const at::Tensor* self = first_tensor(inputs, 0);
        if (self != nullptr && self->has_storage()) {
          p.input_storage = self->storage().unsafeGetStorageImpl();
        }
      }
      break;
    default:
      break;
  }
  if ((p.record_origin || p.traced) && t.pending_count < kMaxPending) {
    if (p.traced) p.start_us = now_us();
    t.pending[t.pending_count++] = p;
  }
  return nullptr;
}

void on_op_end(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
  ThreadState& t = tls;
  if (t.depth > 0) --t.depth;
  if (t.suppress_depth != kNotSuppressed && t.depth <= t.suppress_depth) {
    t.suppress_depth = kNotSuppressed;
  }
  if (t.pending_count == 0 || t.pending[t.pending_count - 1].fn != &fn) return;
  const Pending p = t.pending[--t.pending_count];
  Engine& e = Engine::get();
  if (p.traced) {
    e.ledger.add_event(
        TraceEvent{p.op, p.kind == OpKind::kSync ? "sync" : "copy", p.start_us,
                   now_us() - p.start_us, thread_key(), p.bytes, p.src(), p.dst(), p.site},
        e.max_trace_events.load(std::memory_order_relaxed));
  }
  if (!p.record_origin) return;
  const auto& outputs = fn.outputs();
  if (outputs.empty() || !outputs[0].isTensor()) return;
  const at::Tensor& out = outputs[0].toTensor();
  if (!out.defined() || !out.has_storage()) return;
  // to() on the right device returns its input: keep the input's origin.
  if (out.storage().unsafeGetStorageImpl() == p.input_storage) return;
  e.provenance.record(out.storage(), Origin{p.op, p.site});
}

}  // namespace devcheck::sanitizer
