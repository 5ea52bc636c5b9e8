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

#include "fake/checks.h"

#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <c10/util/SmallVector.h>

#include "detail/compat.h"
#include "fake/ivalue_tensors.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace devcheck::detail {
namespace {

// where.self in 2.x moves 0-dim operands to the common device first
// (TensorCompare.cpp); 1.13's TensorIterator for it allows no CPU scalar.
constexpr bool kWhereMovesScalars = DEVCHECK_TORCH_AT_LEAST(2, 0);

const char* const kSameDevice =
    "Expected all tensors to be on the same device, but found at least two devices, ";

// Ops that take CPU index tensors with device tensors, as CUDA allows.
bool takes_cpu_indices(std::string_view op) {
  return op == "aten::index" || op == "aten::index_put_" || op == "aten::index_put" ||
         op == "aten::_index_put_impl_";
}

// CUDA kernels that check devices in words of their own, before any
// generated or TensorIterator check (aten/src/ATen/native/cuda/Indexing.cu,
// TensorAdvancedIndexing.cpp, TensorCompare.cpp).
enum class Special : std::uint8_t {
  kNone,
  kIndex,            // aten::index.Tensor: indices on the CPU or on self's device
  kMaskedFill,       // masked_fill_.Scalar: self and mask on one device
  kMaskedFillValue,  // masked_fill_.Tensor: a 0-dim value, self not on the CPU, then as above
  kWhere,            // where.self: 1.13 takes no CPU scalar; 2.x moves 0-dim operands over
};

// How one op is checked; made once per op.
struct Plan {
  const char* method = nullptr;           // a generated check's wrapper; nullptr: TensorIterator's
  c10::SmallVector<size_t, 6> arguments;  // a generated check's arguments, in order
  bool cpu_indices = false;
  Special special = Special::kNone;
};

Special special_of(const std::string& op) {
  if (op == "aten::index.Tensor") return Special::kIndex;
  if (op == "aten::masked_fill_.Scalar") return Special::kMaskedFill;
  if (op == "aten::masked_fill_.Tensor") return Special::kMaskedFillValue;
  if (op == "aten::where.self") return Special::kWhere;
  return Special::kNone;
}

Plan make_plan(FakeKind kind, const c10::OperatorHandle& op) {
  Plan plan;
  const c10::FunctionSchema& schema = op.schema();
  plan.cpu_indices = takes_cpu_indices(schema.name());
  if (kind != FakeKind::kCuda) return plan;
  std::string full = schema.name();
  if (!schema.overload_name().empty()) full += "." + schema.overload_name();
  plan.special = special_of(full);
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

const at::Tensor& tensor_at(const torch::jit::Stack& stack, size_t first, size_t i) {
  return stack[first + i].toTensor();
}

// The checks a CUDA kernel makes in its own words.
void special_check(Special special, const torch::jit::Stack& stack, size_t first) {
  switch (special) {
    case Special::kNone:
    case Special::kWhere:
      return;
    case Special::kIndex: {
      const c10::Device self = tensor_at(stack, first, 0).device();
      for (const c10::IValue& index : stack[first + 1].toListRef()) {
        if (!index.isTensor() || !index.toTensor().defined()) continue;  // a slice
        const c10::Device d = index.toTensor().device();
        TORCH_CHECK(d.is_cpu() || d == self, "indices should be either on ", c10::kCPU,
                    " or on the same device as the indexed tensor (", self, ")");
      }
      return;
    }
    case Special::kMaskedFillValue: {
      const at::Tensor& value = tensor_at(stack, first, 2);
      TORCH_CHECK(value.dim() == 0,
                  "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
                  value.dim(), " dimension(s).");
      TORCH_CHECK(!tensor_at(stack, first, 0).device().is_cpu(),
                  "masked_fill_: Expected inputs to be on same device");
      [[fallthrough]];
    }
    case Special::kMaskedFill: {
      const at::Tensor& self = tensor_at(stack, first, 0);
      const at::Tensor& mask = tensor_at(stack, first, 1);
      TORCH_CHECK(self.device() == mask.device(),
                  "expected self and mask to be on the same device, but got mask on ",
                  mask.device(), " and self on ", self.device());
      return;
    }
  }
}

}  // namespace

c10::Device check_devices(FakeKind kind, const c10::OperatorHandle& op,
                          const torch::jit::Stack& stack, size_t first) {
  const Plan& plan = plan_of(kind, op);
  const c10::FunctionSchema& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  const c10::DeviceType type = device_type_of(kind);
  special_check(plan.special, stack, first);
  if (plan.method != nullptr) generated_check(plan, schema, stack, first);
  // TensorIterator lets one 0-dim CPU input through to a kernel on another
  // device; where.self takes none in 1.13 and moves every 0-dim operand
  // over in 2.x.
  const auto every = static_cast<int>(num_args);
  const int cpu_scalars_allowed = plan.special == Special::kWhere
                                      ? (kWhereMovesScalars ? every : 0)
                                      : (kind == FakeKind::kCuda ? 1 : every);
  int cpu_scalars = 0;

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
        if (d.is_cpu() && plan.cpu_indices && in_list) return;
        if (d.is_cpu() && t.dim() == 0 && cpu_scalars_allowed > 0) {
          TORCH_CHECK(++cpu_scalars <= cpu_scalars_allowed,
                      "Trying to pass too many CPU scalars to non-CPU kernel!");
          return;
        }
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

void move_cpu_indices(FakeKind kind, const c10::OperatorHandle& op, torch::jit::Stack& stack,
                      size_t first, c10::Device device) {
  // The fake accelerator has no index kernel of its own: LibTorch's
  // structured index makes the copies before it calls index.out. Every op
  // passes here: the plan is looked up only for a list second argument.
  if (kind != FakeKind::kCuda || stack.size() < first + 2) return;
  c10::IValue& indices = stack[first + 1];  // (Tensor self, Tensor?[] indices, ...)
  if (!indices.isList() || !plan_of(kind, op).cpu_indices) return;
  const auto list = indices.toListRef();
  const auto on_cpu = [](const c10::IValue& v) { return v.isTensor() && v.toTensor().is_cpu(); };
  if (std::none_of(list.begin(), list.end(), on_cpu)) return;
  c10::List<c10::optional<at::Tensor>> moved;  // a new list: the caller's stays as it was
  moved.reserve(list.size());
  for (const c10::IValue& v : list) {
    if (!v.isTensor()) {
      moved.push_back(c10::nullopt);
    } else {
      const at::Tensor& t = v.toTensor();
      moved.push_back(t.is_cpu() ? t.to(t.options().device(device)) : t);
    }
  }
  indices = c10::IValue(std::move(moved));
}

}  // namespace devcheck::detail
