// What the watch records of an op: mismatches for the report, copies and
// syncs for the ledger, spans for the trace (record.h).
#include "sanitizer/record.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "detail/mismatch.h"
#include "detail/staged_copy_label.h"
#include "sanitizer/report.h"
#include "sanitizer/steps.h"

// LibTorch's headers change layouts and add asserts when NDEBUG is unset;
// LibTorch is built with it, so this file must be too.
#ifndef NDEBUG
#error "src/sanitizer/record.cc must be compiled with NDEBUG (see src/sanitizer/module.cmake)"
#endif

namespace devcheck::sanitizer {
namespace {

std::uint64_t thread_key() {
  static thread_local const std::uint64_t key =
      std::hash<std::thread::id>()(std::this_thread::get_id());
  return key;
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
                  const c10::Storage* written, std::uint64_t op_index, Engine& e) {
  // A meta tensor has no data: a move to or from meta copies nothing.
  if (m.src.is_meta() || m.dst.is_meta()) return;
  const bool sync = m.dst.is_cpu() && !m.src.is_cpu() && !non_blocking;
  const SanitizerOptions& settings = e.settings();
  CopyEvent copy{m.bytes, sync, thread_key(), op_index, step_epoch(), read, written, true};
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

}  // namespace

bool bool_argument(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                   const char* name) {
  const auto i = schema.argumentIndexWithName(name);
  return i.has_value() && static_cast<std::size_t>(*i) < inputs.size() && inputs[*i].isBool() &&
         inputs[*i].toBool();
}

// Every argument's name, device and origin, and where the op ran.
std::size_t record_mismatch(const c10::FunctionSchema& schema,
                            c10::ArrayRef<const c10::IValue> inputs, const OpInfo& info,
                            Engine& e) {
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
  const SanitizerMode mode = e.settings().mode();
  if (mode == SanitizerMode::kFail) e.fail_requested.store(true);
  if (is_new && mode != SanitizerMode::kReport) {
    Engine::warn(make_mismatch_finding(e.mismatch(index)).message);
  }
  return index;
}

void record_copy(const at::Tensor& self, const at::Tensor& src, bool non_blocking,
                 std::uint64_t op_index, Engine& e, Movement& m) {
  if (self.device() == src.device()) return;
  m.bytes = nbytes(src);
  m.src = src.device();
  m.dst = self.device();
  const c10::Storage* read = src.has_storage() ? &src.storage() : nullptr;
  const c10::Storage* written = self.has_storage() ? &self.storage() : nullptr;
  add_transfer(m, non_blocking, read, written, op_index, e);
}

void record_transfer(const c10::FunctionSchema& schema, c10::ArrayRef<const c10::IValue> inputs,
                     std::uint64_t op_index, Engine& e, Movement& m) {
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
               self->has_storage() ? &self->storage() : nullptr, nullptr, op_index, e);
}

void record_pin(c10::ArrayRef<const c10::IValue> inputs, std::uint64_t op_index, Engine& e,
                Movement& m) {
  const at::Tensor* self = first_tensor(inputs, 0);
  if (self == nullptr || !self->is_cpu()) return;
  m.bytes = nbytes(*self);
  m.src = self->device();
  m.dst = self->device();
  m.site = capture_site();
  e.ledger.add_transfer(
      TransferKey{m.site, m.op, m.src, m.dst, true},
      CopyEvent{m.bytes, false, thread_key(), op_index, 0, nullptr, nullptr, true}, FloodRule{});
  m.traced = e.settings().trace();
}

void record_sync(const at::Tensor& self, Engine& e, Movement& m) {
  if (self.is_cpu()) return;  // a CPU item() waits for nothing
  m.src = self.device();
  m.dst = c10::Device(c10::kCPU);
  m.bytes = nbytes(self);
  m.site = capture_site();
  e.ledger.add_sync(SyncKey{m.site, m.op, m.src});
  m.traced = e.settings().trace();
}

void add_event(const Movement& m, const char* what, double start_us, Engine& e) {
  e.ledger.add_event(TraceEvent{m.op, what, start_us, now_us() - start_us, thread_key(), m.bytes,
                                m.src, m.dst, m.site},
                     e.settings().max_trace_events());
}

}  // namespace devcheck::sanitizer
