// The watch: the dispatcher fallback every ATen op a watched thread calls
// passes through once, at its boundary (the ops it runs inside are not
// intercepted again), the observers of the copies and syncs those inner ops
// make, and their installation. The hot path of the sanitizer: the common
// case (an op whose tensors agree) allocates nothing and takes no lock, and
// what it calls per op is in this file. What an op leaves in the records (a
// mismatch, a transfer, a sync) is record.cc's.
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/_local_scalar_dense_ops.h>
#include <ATen/ops/copy_ops.h>
#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <algorithm>
#include <optional>
#include <string>

#include "detail/mismatch.h"
#include "devcheck/error.h"
#include "sanitizer/engine.h"
#include "sanitizer/ops.h"
#include "sanitizer/record.h"
#include "sanitizer/stack.h"

// LibTorch's headers change layouts and add asserts when NDEBUG is unset;
// LibTorch is built with it, so this file must be too.
#ifndef NDEBUG
#error "src/sanitizer/watch.cc must be compiled with NDEBUG (see src/sanitizer/module.cmake)"
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
// would be the hottest line of the watch.
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
  record_copy(self, src, non_blocking, t.ops, e, m);
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
    if (C10_UNLIKELY(scan.mismatch)) {
      t.last_mismatch = static_cast<long>(record_mismatch(schema, inputs, info, e));
      t.generation = e.generation();
    }
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
        record_copy(*self, *src, bool_argument(schema, inputs, "non_blocking"), t.ops, e, m);
      }
      break;
    }
    case OpKind::kPin:
      record_pin(inputs, t.ops, e, m);
      break;
    case OpKind::kSync:
      if (const at::Tensor* self = first_tensor(inputs, 0)) record_sync(*self, e, m);
      break;
    case OpKind::kTransfer:
    case OpKind::kFactory:
      if (info.kind == OpKind::kTransfer) record_transfer(schema, inputs, t.ops, e, m);
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
