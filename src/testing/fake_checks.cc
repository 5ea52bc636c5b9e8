// The device check before each op on a fake device. Two ways of checking,
// as LibTorch has them:
//  - a CUDA wrapper's generated check (c10::impl::check_and_update_common_device):
//    the checked arguments in order, the first defined tensor sets the common
//    device, and a mismatch names the argument and the wrapper;
//  - TensorIterator's (and the default for ops without a generated check):
//    the first tensor on a device that is not the CPU sets the common device,
//    0-dim CPU tensors are allowed (and CPU index tensors for indexing ops),
//    and a mismatch names the two devices.
// Fake CUDA picks per op from the CUDA build's own table; the fake
// accelerator always checks as TensorIterator does and names the ATen op.

#include "testing/fake_checks.h"

#include <c10/util/SmallVector.h>

#include <mutex>
#include <string_view>
#include <unordered_map>

namespace devcheck::detail {
namespace {

const char* const kSameDevice =
    "Expected all tensors to be on the same device, but found at least two devices, ";

// Ops that take CPU index tensors with device tensors, as CUDA allows.
bool takes_cpu_indices(std::string_view op) {
  return op == "aten::index" || op == "aten::index_put_" || op == "aten::index_put" ||
         op == "aten::_index_put_impl_";
}

// How one op is checked; made once per op.
struct Plan {
  const char* method = nullptr;           // a generated check's wrapper; nullptr: TensorIterator's
  c10::SmallVector<size_t, 6> arguments;  // a generated check's arguments, in order
  bool cpu_indices = false;
};

Plan make_plan(FakeKind kind, const c10::OperatorHandle& op) {
  Plan plan;
  const c10::FunctionSchema& schema = op.schema();
  plan.cpu_indices = takes_cpu_indices(schema.name());
  if (kind != FakeKind::kCuda) return plan;
  std::string full = schema.name();
  if (!schema.overload_name().empty()) full += "." + schema.overload_name();
  const CudaCheckRule* rule = cuda_check_rule(full);
  if (rule == nullptr || rule->method == nullptr) return plan;
  const auto& args = schema.arguments();
  std::string_view names(rule->arguments);
  while (!names.empty()) {
    const size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].name() == name) plan.arguments.push_back(i);
    }
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
  }
  plan.method = rule->method;
  return plan;
}

// Plans live for the process; each thread keeps its own index of them.
const Plan& plan_of(FakeKind kind, const c10::OperatorHandle& op) {
  using Index = std::unordered_map<const void*, const Plan*>;
  thread_local std::array<Index, 2> seen;
  Index& index = seen.at(static_cast<size_t>(kind));
  const void* key = &op.schema();
  auto hit = index.find(key);
  if (hit != index.end()) return *hit->second;
  static std::mutex mutex;
  static auto* plans = new std::array<std::unordered_map<const void*, Plan>, 2>();
  const std::lock_guard<std::mutex> lock(mutex);
  auto& all = plans->at(static_cast<size_t>(kind));
  auto it = all.find(key);
  if (it == all.end()) it = all.emplace(key, make_plan(kind, op)).first;
  index.emplace(key, &it->second);
  return it->second;
}

template <typename F>
void for_each_tensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor(), false);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) {
      if (e.isTensor()) f(e.toTensor(), true);
    }
  }
}

// check_and_update_common_device, argument by argument.
c10::optional<c10::Device> generated_check(const Plan& plan, const c10::FunctionSchema& schema,
                                           const torch::jit::Stack& stack, size_t first) {
  c10::optional<c10::Device> common;
  for (const size_t i : plan.arguments) {
    for_each_tensor(stack[first + i], [&](const at::Tensor& t, bool /*in_list*/) {
      if (!t.defined()) return;
      if (!common) {
        common = t.device();
      } else if (*common != t.device()) {
        TORCH_CHECK(false, kSameDevice, *common, " and ", t.device(),
                    "! (when checking argument for argument ", schema.arguments()[i].name(),
                    " in method ", plan.method, ")");
      }
    });
  }
  return common;
}

}  // namespace

c10::Device check_devices(FakeKind kind, const c10::OperatorHandle& op,
                          const torch::jit::Stack& stack, size_t first) {
  const Plan& plan = plan_of(kind, op);
  const c10::FunctionSchema& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  const c10::DeviceType type = device_type_of(kind);
  if (plan.method != nullptr) generated_check(plan, schema, stack, first);

  // TensorIterator's way (and, after a generated check, where the op runs:
  // arguments the wrapper does not check may still be anywhere).
  c10::optional<c10::Device> common;
  c10::optional<c10::Device> pending;  // a non-fake device seen before the first fake one
  size_t pending_arg = 0;
  auto fail = [&](c10::Device other, size_t arg) {
    if (kind == FakeKind::kCuda) {
      TORCH_CHECK(false, kSameDevice, *common, " and ", other, "!");
    }
    TORCH_CHECK(false, kSameDevice, *common, " and ", other,
                "! (when checking argument for argument ", schema.arguments()[arg].name(),
                " in method ", schema.operator_name(), ")");
  };
  for (size_t i = 0; i < num_args; ++i) {
    const c10::IValue& v = stack[first + i];
    if (v.isDevice()) {
      const c10::Device d = v.toDevice();
      if (d.type() == type && !common) {
        common = c10::Device(type, fake_index_or_current(kind, d));
      }
      continue;
    }
    for_each_tensor(v, [&](const at::Tensor& t, bool in_list) {
      if (!t.defined()) return;
      const c10::Device d = t.device();
      if (d.type() == type) {
        if (!common) {
          common = d;
          if (pending) fail(*pending, pending_arg);
        } else if (d != *common) {
          fail(d, i);
        }
        return;
      }
      if (plan.method == nullptr) {
        if (d.is_cpu() && (t.dim() == 0 || (plan.cpu_indices && in_list))) return;
        if (!common) {
          if (!pending) {
            pending = d;
            pending_arg = i;
          }
          return;
        }
        fail(d, i);
      }
    });
  }
  TORCH_INTERNAL_ASSERT(common.has_value(), "fake ", type, ": ", schema.operator_name(),
                        " reached the fake backend without an argument on it");
  return *common;
}

}  // namespace devcheck::detail
