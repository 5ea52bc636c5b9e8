// The dispatcher fallback: the hot path of the sanitizer. Every ATen op a
// watched thread calls passes through watch_op() once, at its boundary (the
// ops it runs inside are not intercepted again), so the common case (an op
// whose tensors agree) allocates nothing and takes no lock.
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/_local_scalar_dense_ops.h>
#include <ATen/ops/copy_ops.h>
#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "detail/mismatch.h"
#include "detail/staged_copy_label.h"
#include "devcheck/error.h"
#include "sanitizer/engine.h"
#include "sanitizer/ops.h"
#include "sanitizer/report.h"
#include "sanitizer/stack.h"
#include "sanitizer/steps.h"

// LibTorch's headers change layouts and add asserts when NDEBUG is unset;
// LibTorch is built with it, so this file must be too.
#ifndef NDEBUG
#error "src/sanitizer/callback.cc must be compiled with NDEBUG (see src/sanitizer/module.cmake)"
#endif

namespace devcheck::sanitizer {
namespace {

// A direct-mapped cache of classify_op() by name pointer. An op's name is
// its schema's string, whose address is stable while the op is registered, so
// a pointer names one op. The special ops are ATen's and never go away; an
// op registered later in reused memory can only find a slot that says
// "plain", which is what it is.
constexpr int kOpCacheSlots = 64;
struct OpCacheSlot {
  const char* name;
  OpInfo info;
};

// Op counts are flushed to the engine in batches: one shared atomic per op
// would be the hottest line of the callback.
constexpr std::uint64_t kOpFlushEvery = 256;

// Trivially destructible on purpose: an op may run during thread exit, after
// non-trivial thread_locals are gone.
struct ThreadState {
  std::uint64_t ops;
  std::uint64_t ops_unflushed;
  std::uint64_t generation;  // of last_mismatch
  long last_mismatch;
  // The watched op running on this thread (null outside one) and its kind:
  // a copy or a sync inside it is a hidden one (see observe_copy).
  const char* enclosing_op;
  OpKind enclosing_kind;
  OpCacheSlot op_cache[kOpCacheSlots];
};

thread_local ThreadState tls = {0, 0, 0, -1, nullptr, OpKind::kPlain, {}};

// Sets the enclosing op for the length of a scope.
class Enclosing {
 public:
  Enclosing(ThreadState& t, const char* op, OpKind kind)
      : t_(t), op_(t.enclosing_op), kind_(t.enclosing_kind) {
    t.enclosing_op = op;
    t.enclosing_kind = kind;
  }
  ~Enclosing() {
    t_.enclosing_op = op_;
    t_.enclosing_kind = kind_;
  }
  Enclosing(const Enclosing&) = delete;
  Enclosing& operator=(const Enclosing&) = delete;

 private:
  ThreadState& t_;
  const char* op_;
  OpKind kind_;
};

// Whether a copy or sync now is one the program did not ask for by name: it
// runs inside a watched op that is not itself a copy, transfer or sync.
bool hidden(const ThreadState& t) {
  return t.enclosing_op != nullptr &&
         (t.enclosing_kind == OpKind::kPlain || t.enclosing_kind == OpKind::kFactory ||
          t.enclosing_kind == OpKind::kCrossDevice || t.enclosing_kind == OpKind::kHostArguments);
}

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

// The one-device rule (detail/mismatch.h): every defined tensor on one
// device, 0-dim CPU tensors (wrapped scalars) allowed anywhere.
struct DeviceScan {
  bool have = false;
  bool mismatch = false;
  c10::Device first = c10::Device(c10::kCPU);

  void add(const at::Tensor& t, bool host_allowed = false) {
    if (!t.defined()) return;
    const c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    const c10::Device d = impl->device();
    if (host_allowed && d.is_cpu()) return;
    if (have && d == first) return;
    if (detail::wrapped_scalar(d, static_cast<std::size_t>(impl->dim()))) return;
    if (!have) {
      have = true;
      first = d;
      return;
    }
    mismatch = true;
  }
  void add(const c10::IValue& v, bool host_allowed = false) {
    if (v.isTensor()) {
      add(v.toTensor(), host_allowed);
    } else if (v.isList()) {
      for (const c10::IValue& e : v.toListRef()) {
        if (e.isTensor()) add(e.toTensor(), host_allowed);
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
  if (e.settings().provenance() && t.has_storage()) {
    if (auto origin = e.provenance.find(t.storage().unsafeGetStorageImpl())) {
      a.origin_known = true;
      a.origin = *origin;
    }
  }
  args.push_back(std::move(a));
}

// The rare path: tensors on several devices. Records the finding with every
// argument's name, device and origin, and where the op ran.
void record_mismatch(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                     const OpInfo& info, Engine& e, ThreadState& t) {
  MismatchRecord record;
  record.op = schema.name();
  const auto& params = schema.arguments();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string name = i < params.size() ? params[i].name() : "input" + std::to_string(i);
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
  // The op's device and its strays: the rule check_same_device() uses.
  // An argument the op takes on the host (index's indices) is never a stray there.
  auto on_host_by_design = [&](const ArgRecord& a) {
    if (!a.device.is_cpu()) return false;
    const std::size_t bracket = a.name.find('[');
    return host_argument(info, bracket == std::string::npos ? a.name : a.name.substr(0, bracket));
  };
  detail::DeviceTally counts;
  for (const auto& a : record.args) {
    if (!detail::wrapped_scalar(a.device, a.shape.size()) && !on_host_by_design(a)) {
      counts.add(a.device);
    }
  }
  record.expected = counts.expected().value_or(record.expected);
  for (auto& a : record.args) {
    a.stray = !on_host_by_design(a) && detail::is_stray(a.device, a.shape.size(), record.expected);
  }
  record.site = capture_site();
  const auto [index, is_new] = e.add_mismatch(std::move(record));
  t.generation = e.generation();
  t.last_mismatch = static_cast<long>(index);
  const SanitizerMode mode = e.settings().mode();
  if (mode == SanitizerMode::kFail) e.fail_requested.store(true);
  if (is_new && mode != SanitizerMode::kReport) {
    Engine::warn(make_mismatch_finding(e.mismatch(index)).message);
  }
}

// What a watched op moves between devices or waits for: the ledger's entry
// and, when tracing, the span around the op.
struct Movement {
  const char* op = nullptr;
  SiteId site = kNoSite;
  std::uint64_t bytes = 0;
  c10::Device src = c10::Device(c10::kCPU);
  c10::Device dst = c10::Device(c10::kCPU);
  bool traced = false;
};

bool bool_argument(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                   const char* name) {
  const auto i = schema.argumentIndexWithName(name);
  return i.has_value() && static_cast<std::size_t>(*i) < inputs.size() && inputs[*i].isBool() &&
         inputs[*i].toBool();
}

// Where a transfer op sends its input: its `device` argument, or the device
// of its `other` / `dst` tensor; none when it keeps the device (a dtype cast).
c10::optional<c10::Device> destination(const c10::FunctionSchema& schema,
                                       c10::ArrayRef<const c10::IValue> inputs) {
  if (const auto i = schema.argumentIndexWithName("device");
      i.has_value() && static_cast<std::size_t>(*i) < inputs.size() && inputs[*i].isDevice()) {
    return inputs[*i].toDevice();
  }
  for (const char* name : {"other", "dst"}) {
    if (const auto i = schema.argumentIndexWithName(name)) {
      if (const at::Tensor* t = first_tensor(inputs, static_cast<std::size_t>(*i))) {
        return t->device();
      }
    }
  }
  return c10::nullopt;
}

// One copy of `m.bytes` from m.src to m.dst, reading `read` and writing
// `written` (null when the copy makes its output): counted per site, a
// blocking copy to the host also as a sync, and in warn mode a new flood
// printed.
void add_transfer(Movement& m, bool non_blocking, const c10::Storage* read,
                  const c10::Storage* written, Engine& e, ThreadState& t) {
  const bool sync = m.dst.is_cpu() && !m.src.is_cpu() && !m.src.is_meta() && !non_blocking;
  const SanitizerOptions& settings = e.settings();
  CopyEvent copy{m.bytes, sync, thread_key(), t.ops, step_epoch(), read, written, true};
  FloodRule rule{settings.small_copy_bytes(), settings.small_copy_burst_ops(),
                 settings.small_copy_count()};
  // devcheck's own staging copies are whole batches on purpose: counted under
  // their label, never "small". A coalesced transfer (fake CUDA's
  // torch.cuda.comm) is one transfer per direction at the user's line.
  if (const char* staged = detail::staging_label()) {
    m.site = sites().intern(RawStack{}, staged);
    rule.small_bytes = 0;
  } else if (const char* coalesced = coalesced_op()) {
    m.site = capture_site();
    m.op = coalesced;
    copy.counted = first_of_coalesced(m.src, m.dst);
    copy.synchronizing = sync && copy.counted;
    rule.small_bytes = 0;
  } else {
    m.site = capture_site();
  }
  const bool flagged =
      e.ledger.add_transfer(TransferKey{m.site, m.op, m.src, m.dst, false}, copy, rule);
  if (copy.synchronizing) e.ledger.add_sync(SyncKey{m.site, m.op, m.src});
  m.traced = settings.trace();
  if (flagged && settings.mode() != SanitizerMode::kReport) {
    for (const auto& f : make_copy_findings(e)) {
      if (f.second == m.site) Engine::warn(f.first.message);
    }
  }
}

// self.copy_(src): a transfer when they are on different devices.
void record_copy(const at::Tensor& self, const at::Tensor& src, bool non_blocking, Engine& e,
                 ThreadState& t, Movement& m) {
  if (self.device() == src.device()) return;
  m.bytes = nbytes(src);
  m.src = src.device();
  m.dst = self.device();
  const c10::Storage* read = src.has_storage() ? &src.storage() : nullptr;
  const c10::Storage* written = self.has_storage() ? &self.storage() : nullptr;
  add_transfer(m, non_blocking, read, written, e, t);
}

// to(), _to_copy(), _copy_from(): self goes where destination() says.
void record_transfer(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                     Engine& e, ThreadState& t, Movement& m) {
  const at::Tensor* self = first_tensor(inputs, 0);
  if (self == nullptr) return;
  const c10::optional<c10::Device> dst = destination(schema, inputs);
  if (!dst.has_value()) return;
  // A device without an index ("cuda") means the current one: same type, same place.
  if (dst->type() == self->device().type() && (!dst->has_index() || *dst == self->device())) {
    return;
  }
  m.bytes = nbytes(*self);
  m.src = self->device();
  m.dst = *dst;
  add_transfer(m, bool_argument(schema, inputs, "non_blocking"),
               self->has_storage() ? &self->storage() : nullptr, nullptr, e, t);
}

void record_pin(c10::ArrayRef<const c10::IValue> inputs, Engine& e, ThreadState& t, Movement& m) {
  const at::Tensor* self = first_tensor(inputs, 0);
  if (self == nullptr || !self->is_cpu()) return;
  m.bytes = nbytes(*self);
  m.src = self->device();
  m.dst = self->device();
  m.site = capture_site();
  e.ledger.add_transfer(TransferKey{m.site, m.op, m.src, m.dst, true},
                        CopyEvent{m.bytes, false, thread_key(), t.ops, 0, nullptr, nullptr, true},
                        FloodRule{});
  m.traced = e.settings().trace();
}

// The host reads a value of self: a sync unless self is on the host.
void record_sync(const at::Tensor& self, Engine& e, Movement& m) {
  if (self.is_cpu()) return;  // a CPU item() waits for nothing
  m.src = self.device();
  m.dst = c10::Device(c10::kCPU);
  m.bytes = nbytes(self);
  m.site = capture_site();
  e.ledger.add_sync(SyncKey{m.site, m.op, m.src});
  m.traced = e.settings().trace();
}

// The ops under this one are not watched: they are the op's own business
// (the empty() inside ones(), the copy_() inside to(), the mm() inside
// matmul()); only the copies and syncs among them are observed (below).
void run_op(const c10::OperatorHandle& op, c10::DispatchKeySet below, torch::jit::Stack* stack,
            ThreadState& t, OpKind kind) {
  const Enclosing enclosing(t, op.schema().name().c_str(), kind);
  const c10::impl::ExcludeDispatchKeyGuard inside(kWatchKey);
  op.redispatchBoxed(below, stack);
}

c10::DispatchKeySet below_observers(c10::DispatchKeySet keys) {
  return keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, kObserveKey);
}

void add_event(const Movement& m, const char* what, double start_us, Engine& e) {
  e.ledger.add_event(TraceEvent{m.op, what, start_us, now_us() - start_us, thread_key(), m.bytes,
                                m.src, m.dst, m.site},
                     e.settings().max_trace_events());
}

// copy_ anywhere on a watched thread: counted when it is a hidden
// cross-device copy (an op the program called copied data on its own),
// under the name of that op.
at::Tensor& observe_copy(c10::DispatchKeySet keys, at::Tensor& self, const at::Tensor& src,
                         bool non_blocking) {
  ThreadState& t = tls;
  Engine& e = Engine::get();
  if (!e.active() || !hidden(t) || !self.defined() || !src.defined() ||
      self.device() == src.device()) {
    return at::_ops::copy_::redispatch(below_observers(keys), self, src, non_blocking);
  }
  Movement m;
  m.op = interned(t.enclosing_op);
  record_copy(self, src, non_blocking, e, t, m);
  const double start_us = m.traced ? now_us() : 0.0;
  const Enclosing counted(t, t.enclosing_op, OpKind::kCopy);  // what it runs inside is its own
  at::Tensor& result = at::_ops::copy_::redispatch(below_observers(keys), self, src, non_blocking);
  if (m.traced) add_event(m, "copy", start_us, e);
  return result;
}

// _local_scalar_dense anywhere on a watched thread: counted when hidden.
at::Scalar observe_sync(c10::DispatchKeySet keys, const at::Tensor& self) {
  ThreadState& t = tls;
  Engine& e = Engine::get();
  if (!e.active() || !hidden(t) || !self.defined() || self.is_cpu()) {
    return at::_ops::_local_scalar_dense::redispatch(below_observers(keys), self);
  }
  Movement m;
  m.op = interned(t.enclosing_op);
  record_sync(self, e, m);
  const double start_us = m.traced ? now_us() : 0.0;
  const Enclosing counted(t, t.enclosing_op, OpKind::kSync);
  at::Scalar result = at::_ops::_local_scalar_dense::redispatch(below_observers(keys), self);
  if (m.traced) add_event(m, "sync", start_us, e);
  return result;
}

// The one tensor an op takes (wrapped scalars aside), or null: a derivation
// of one tensor (triu, repeat, neg, cumsum) has no device of its own.
const at::Tensor* sole_tensor(c10::ArrayRef<const c10::IValue> inputs) {
  const at::Tensor* found = nullptr;
  for (const c10::IValue& v : inputs) {
    if (v.isList()) {  // a list of tensors (cat) is several; of sizes (repeat's SymInt[]) none
      for (const c10::IValue& element : v.toListRef()) {
        if (element.isTensor()) return nullptr;
      }
      continue;
    }
    if (!v.isTensor()) continue;
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) continue;
    const c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    if (detail::wrapped_scalar(impl->device(), static_cast<std::size_t>(impl->dim()))) continue;
    if (found != nullptr) return nullptr;
    found = &t;
  }
  return (found != nullptr && found->has_storage()) ? found : nullptr;
}

// Runs an op that derives a new tensor from one input. When the input's
// origin is known (a factory's or a transfer's result, or a derivation of
// one), the result, on the input's device, is made here, from the factory
// or transfer its chain started at: the stray `self.mask =
// torch.triu(torch.ones(n, n))` of an __init__ is named at that line, not
// where `.bool()` converts it in forward(); `j = torch.arange(m)` then
// `c = sigma ** (j / m)` names both lines. Ops on tensors of unknown origin
// pay nothing more.
void run_derivation(const c10::OperatorHandle& op, c10::DispatchKeySet below,
                    torch::jit::Stack* stack, ThreadState& t, const at::Tensor& input, Engine& e) {
  // Compared only: the map's weak reference keeps a recorded StorageImpl's
  // address from being reused, and find() skips one that has died.
  const c10::StorageImpl* input_storage = input.storage().unsafeGetStorageImpl();
  const c10::Device input_device = input.device();
  run_op(op, below, stack, t, OpKind::kPlain);
  const std::size_t returns = op.schema().returns().size();
  if (returns == 0 || stack->size() < returns) return;
  const c10::IValue& result = (*stack)[stack->size() - returns];
  if (!result.isTensor()) return;
  const at::Tensor& out = result.toTensor();
  if (!out.defined() || !out.has_storage() || out.device() != input_device) return;
  if (out.storage().unsafeGetStorageImpl() == input_storage) return;  // in place or a view
  const std::optional<Origin> input_origin = e.provenance.find(input_storage);
  if (!input_origin) return;
  Origin made{interned(op.schema().name().c_str()), capture_site(), input_origin->from_op,
              input_origin->from_site};
  if (made.from_op == nullptr) {  // the input is the chain's start
    made.from_op = input_origin->op;
    made.from_site = input_origin->site;
  }
  e.provenance.record(out.storage(), made);
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

void watch_op(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  const c10::DispatchKeySet below =
      keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, kWatchKey);
  Engine& e = Engine::get();
  if (C10_UNLIKELY(!e.active())) {
    // The session ended: this thread stops paying for it (the next one joins it again).
    leave_this_thread();
    op.redispatchBoxed(below, stack);
    return;
  }
  ThreadState& t = tls;
  ++t.ops;
  if (++t.ops_unflushed >= kOpFlushEvery) {
    e.ops_checked.fetch_add(t.ops_unflushed, std::memory_order_relaxed);
    t.ops_unflushed = 0;
  }
  const c10::FunctionSchema& schema = op.schema();
  const OpInfo info = classify_cached(t, schema.name().c_str());
  const std::size_t n = std::min(schema.arguments().size(), stack->size());
  const c10::ArrayRef<const c10::IValue> inputs(stack->data() + (stack->size() - n), n);

  if (!crosses_devices(info.kind)) {
    DeviceScan scan;
    if (C10_LIKELY(info.kind != OpKind::kHostArguments)) {
      for (const c10::IValue& v : inputs) scan.add(v);
    } else {
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        scan.add(inputs[i], host_argument(info, schema.arguments()[i].name()));
      }
    }
    if (C10_UNLIKELY(scan.mismatch)) record_mismatch(schema, inputs, info, e, t);
  }
  if (info.kind == OpKind::kPlain && e.settings().provenance()) {
    if (const at::Tensor* only = sole_tensor(inputs)) {
      run_derivation(op, below, stack, t, *only, e);
      return;
    }
  }
  if (info.kind == OpKind::kPlain || info.kind == OpKind::kCrossDevice ||
      info.kind == OpKind::kHostArguments) {
    run_op(op, below, stack, t, info.kind);
    return;
  }

  Movement m;
  m.op = info.name;
  bool record_origin = false;
  const void* input_storage = nullptr;  // compared, never dereferenced
  c10::optional<c10::Device> input_device;
  std::optional<Origin> input_origin;
  switch (info.kind) {
    case OpKind::kCopy: {  // copy_(Tensor self, Tensor src, bool non_blocking)
      const at::Tensor* self = first_tensor(inputs, 0);
      const at::Tensor* src = first_tensor(inputs, 1);
      if (self != nullptr && src != nullptr) {
        record_copy(*self, *src, bool_argument(schema, inputs, "non_blocking"), e, t, m);
      }
      break;
    }
    case OpKind::kPin:
      record_pin(inputs, e, t, m);
      break;
    case OpKind::kSync:
      if (const at::Tensor* self = first_tensor(inputs, 0)) record_sync(*self, e, m);
      break;
    case OpKind::kTransfer:
    case OpKind::kFactory:
      if (info.kind == OpKind::kTransfer) record_transfer(schema, inputs, e, t, m);
      if (e.settings().provenance()) {
        record_origin = true;
        if (m.site == kNoSite) m.site = capture_site();
        const at::Tensor* self = first_tensor(inputs, 0);
        if (self != nullptr && self->has_storage()) {
          input_storage = self->storage().unsafeGetStorageImpl();
          input_device = self->device();
          if (info.kind == OpKind::kTransfer) {
            input_origin = e.provenance.find(self->storage().unsafeGetStorageImpl());
          }
        }
      }
      break;
    default:
      break;
  }
  const double start_us = m.traced ? now_us() : 0.0;
  run_op(op, below, stack, t, info.kind);
  if (m.traced) add_event(m, info.kind == OpKind::kSync ? "sync" : "copy", start_us, e);
  if (!record_origin) return;
  const std::size_t returns = schema.returns().size();
  if (returns == 0 || stack->size() < returns) return;
  const c10::IValue& result = (*stack)[stack->size() - returns];
  if (!result.isTensor()) return;
  const at::Tensor& out = result.toTensor();
  if (!out.defined() || !out.has_storage()) return;
  // to() on the right device returns its input: keep the input's origin.
  if (info.kind == OpKind::kTransfer && out.storage().unsafeGetStorageImpl() == input_storage) {
    return;
  }
  // A conversion that stays on its device (.bool(), .float()) makes a tensor
  // whose device was chosen where its input was made: that is its origin.
  if (input_origin && input_device == out.device()) {
    e.provenance.record(out.storage(), *input_origin);
    return;
  }
  e.provenance.record(out.storage(), Origin{m.op, m.site});
}

void join_this_thread() { c10::impl::tls_set_dispatch_key_included(kWatchKey, true); }

void leave_this_thread() { c10::impl::tls_set_dispatch_key_included(kWatchKey, false); }

namespace {

// Whether `op` has a kernel of someone else's on kObserveKey (LibTorch has
// none for these two ops): the sanitizer then leaves it alone.
bool observer_slot_taken(const char* op) {
  const auto handle = c10::Dispatcher::singleton().findSchema({op, ""});
  return !handle.has_value() || handle->hasKernelForDispatchKey(kObserveKey);
}

}  // namespace

void install_watch_kernels() {
  static bool installed = false;
  if (installed) return;
  try {
    static auto* watch = new torch::Library(torch::Library::IMPL, "_", kWatchKey, __FILE__,
                                            static_cast<std::uint32_t>(__LINE__));
    watch->fallback(torch::CppFunction::makeFromBoxedFunction<&watch_op>());
  } catch (const c10::Error& err) {
    throw InvalidArgumentError(
        std::string("[devcheck] cannot start the sanitizer: expected the dispatch key ") +
        c10::toString(kWatchKey) +
        "'s fallback to be free, found it taken: " + err.what_without_backtrace() +
        "\nfix: run without the library that registers a fallback for that key (torchdistx "
        "does)");
  }
  // Every other op passes the observer key through LibTorch's own fallthrough.
  static auto* observe = new torch::Library(torch::Library::IMPL, "aten", kObserveKey, __FILE__,
                                            static_cast<std::uint32_t>(__LINE__));
  if (!observer_slot_taken("aten::copy_")) observe->impl("copy_", TORCH_FN(observe_copy));
  if (!observer_slot_taken("aten::_local_scalar_dense")) {
    observe->impl("_local_scalar_dense", TORCH_FN(observe_sync));
  }
  installed = true;
}

}  // namespace devcheck::sanitizer
