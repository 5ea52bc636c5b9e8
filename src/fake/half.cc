// float16 and bfloat16 where the CPU lacks the kernel or the path a GPU has:
// the op runs again in float32 and its results are cast to the dtypes it
// returns.

#include "fake/half.h"

#include <ATen/ops/empty_strided.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <exception>
#include <string>
#include <utility>

#include "detail/compat.h"
#include "fake/ivalue_tensors.h"

namespace devcheck::detail {
namespace {

bool is_scalar_type_argument(const c10::Argument& a) {
  c10::TypePtr t = a.real_type();  // type() says int for a ScalarType
  if (t->kind() == c10::TypeKind::OptionalType) {
    t = t->castRaw<c10::OptionalType>()->getElementType();
  }
  return t->kind() == c10::TypeKind::ScalarTypeType;
}

// float16 or bfloat16: the 16-bit floats ("half" below).
bool is_16bit_float(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16; }

bool is_half_dtype(const c10::Argument& a, const c10::IValue& v) {
  return v.isInt() &&
         (v.toInt() == static_cast<int64_t>(at::kHalf) ||
          v.toInt() == static_cast<int64_t>(at::kBFloat16)) &&
         is_scalar_type_argument(a);
}

// softmax's and log_softmax's flag for a float32 result from a Half input
// (aten::_softmax, aten::_log_softmax), which only CUDA's kernels take.
bool is_half_to_float(const c10::Argument& a, const c10::IValue& v) {
  return v.isBool() && a.name() == "half_to_float";
}

// A Meta kernel written in Python (torch 1.13 registers some: prelu's fails
// an assertion for an 8-element input and a 1-element weight) fails with a
// Python exception, which leaves
// Python's error indicator set on this thread: the op's caller would then
// see "returned a result with an exception set". The library links no
// Python, so the C API is looked up where a Python kernel ran (it is loaded).
void clear_python_error() {
  using Ensure = int (*)();  // PyGILState_STATE is an int-sized enum
  using Release = void (*)(int);
  using Clear = void (*)();
  static const auto ensure = reinterpret_cast<Ensure>(dlsym(RTLD_DEFAULT, "PyGILState_Ensure"));
  static const auto release = reinterpret_cast<Release>(dlsym(RTLD_DEFAULT, "PyGILState_Release"));
  static const auto clear = reinterpret_cast<Clear>(dlsym(RTLD_DEFAULT, "PyErr_Clear"));
  if (ensure == nullptr || release == nullptr || clear == nullptr) return;
  const int state = ensure();
  clear();
  release(state);
}

// The dtypes an op returns for these arguments, from its Meta kernel (every
// structured op has one); empty when it has none or it fails.
std::vector<c10::optional<at::ScalarType>> meta_return_types(const c10::OperatorHandle& op,
                                                             const torch::jit::Stack& args) {
  std::vector<c10::optional<at::ScalarType>> out;
  try {
    torch::jit::Stack meta;
    meta.reserve(args.size());
    for (const c10::IValue& v : args) {
      meta.push_back(map_tensors(v, [](const at::Tensor& t) {
        return at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kMeta));
      }));
    }
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::Meta), &meta);
    for (const c10::IValue& r : meta) {
      out.push_back(r.isTensor() ? c10::optional<at::ScalarType>(r.toTensor().scalar_type())
                                 : c10::nullopt);
    }
  } catch (const c10::Error&) {
    out.clear();
  } catch (const std::exception&) {
    clear_python_error();
    out.clear();
  }
  return out;
}

}  // namespace

HalfUse half_use(const c10::OperatorHandle& op, const torch::jit::Stack& stack, std::size_t first) {
  const std::vector<c10::Argument>& arguments = op.schema().arguments();
  HalfUse use = HalfUse::kNone;
  for (std::size_t i = first; i < stack.size() && i - first < arguments.size(); ++i) {
    bool tensor = false;
    for_each_tensor(stack[i], [&](const at::Tensor& t, bool /*in_list*/) {
      tensor = tensor || (t.defined() && is_16bit_float(t.scalar_type()));
    });
    if (tensor) return HalfUse::kTensors;
    if (is_half_dtype(arguments[i - first], stack[i])) use = HalfUse::kDtypeOnly;
  }
  return use;
}

// The messages of LibTorch's CPU kernels, the same in 1.13, 2.6 and 2.14:
// AT_DISPATCH's "\"addmm_impl_cpu_\" not implemented for 'Half'" (or
// 'BFloat16': 1.13's mse_loss, prod), a few
// kernels' own "... \"Half\" ...", softmax's refusal of the half-to-float
// path ("softmax with half to float conversion is not supported on CPU"),
// and its backward's, whose CPU kernel reads the Half gradient its Meta
// function made as float32 ("expected scalar type Float but found Half"):
// that one counts only where the Half came from a dtype argument alone, as
// for a mix of Half and float32 tensors it is a mismatch a GPU rejects too.
bool cpu_lacks_half_path(const c10::Error& e, HalfUse use) {
  const std::string& m = e.msg();
  if (use == HalfUse::kNone) return false;
  if (use == HalfUse::kDtypeOnly &&
      (m.find("expected scalar type Float but found Half") != std::string::npos ||
       m.find("expected scalar type Float but found BFloat16") != std::string::npos)) {
    return true;
  }
  return m.find("not implemented for 'Half'") != std::string::npos ||
         m.find("not implemented for 'BFloat16'") != std::string::npos ||
         m.find("\"Half\"") != std::string::npos ||
         m.find("with half to float conversion is not supported on CPU") != std::string::npos;
}

bool cpu_fails_half_path(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                         std::size_t first) {
#if DEVCHECK_CPU_BF16_TRANSPOSED_CONV_MISROUTED
  const c10::FunctionSchema& schema = op.schema();
  if (schema.name() != "aten::convolution" && schema.name() != "aten::convolution_backward") {
    return false;
  }
  const c10::optional<int> transposed = schema.argumentIndexWithName("transposed");
  const c10::optional<int> input = schema.argumentIndexWithName("input");
  if (!transposed || !input) return false;
  const c10::IValue& flag = stack[first + static_cast<std::size_t>(*transposed)];
  const c10::IValue& x = stack[first + static_cast<std::size_t>(*input)];
  return flag.isBool() && flag.toBool() && x.isTensor() &&
         x.toTensor().scalar_type() == at::kBFloat16;
#else
  (void)op;
  (void)stack;
  (void)first;
  return false;
#endif
}

#if DEVCHECK_MATMUL_DTYPES_CHECKED_IN_CUDA_KERNEL
namespace {

// bmm(batch1, batch2), baddbmm(self, batch1, batch2) and baddbmm_ as 1.13's
// CUDA kernel (baddbmm_out_cuda_impl) meets a dtype mix: no Meta check; the
// result takes batch2's dtype (baddbmm_: self is the result); the kernel
// dispatches on self's dtype (bmm: the result's) and reads the two batches
// as that type, batch2 first where it computes the transposed product (a
// result whose last dimension is contiguous, as a fresh one's is unless it
// has one column), then the result: the first of another dtype fails
// data_ptr's check. An empty
// result or product computes nothing and fails nothing.
void check_batched_matmul_as_a_gpu_does(const c10::FunctionSchema& schema,
                                        const torch::jit::Stack& stack, std::size_t first) {
  const bool bmm = schema.name() == "aten::bmm";
  const bool in_place = schema.name() == "aten::baddbmm_";
  auto tensor = [&](const char* name) -> at::Tensor {
    const c10::optional<int> i = schema.argumentIndexWithName(name);
    if (!i) return at::Tensor();
    const c10::IValue& v = stack[first + static_cast<std::size_t>(*i)];
    return v.isTensor() ? v.toTensor() : at::Tensor();
  };
  const at::Tensor batch1 = tensor(bmm ? "self" : "batch1");
  const at::Tensor batch2 = tensor(bmm ? "mat2" : "batch2");
  const at::Tensor self = bmm ? at::Tensor() : tensor("self");
  if (!batch1.defined() || !batch2.defined() || batch1.dim() != 3 || batch2.dim() != 3) return;
  if (!bmm && !self.defined()) return;
  if (in_place && self.dim() != 3) return;  // the Meta check's error comes first
  const int64_t rows = batch1.size(1);
  const int64_t cols = batch2.size(2);
  if (batch1.size(0) * rows * cols == 0 || batch1.size(2) == 0) return;
  const at::ScalarType result = in_place ? self.scalar_type() : batch2.scalar_type();
  const at::ScalarType dispatched = bmm ? result : self.scalar_type();
  // The result's layout: a fresh one is contiguous; baddbmm_ writes self.
  const std::vector<int64_t> strides =
      in_place ? self.strides().vec() : std::vector<int64_t>{rows * cols, cols, 1};
  // CUDA's three layouts: as it is, transposed, or a column-major copy.
  const bool as_it_is = strides[1] == 1 && (cols == 1 || strides[2] >= std::max<int64_t>(1, rows));
  const bool transposed =
      !as_it_is && strides[2] == 1 && (rows == 1 || strides[1] >= std::max<int64_t>(1, cols));
  const std::array<at::ScalarType, 3> read = {
      transposed ? batch2.scalar_type() : batch1.scalar_type(),
      transposed ? batch1.scalar_type() : batch2.scalar_type(), result};
  for (const at::ScalarType type : read) {
    TORCH_CHECK(type == dispatched, "expected scalar type ", dispatched, " but found ", type);
  }
}

}  // namespace
#endif

void check_half_as_a_gpu_does(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                              std::size_t first) {
#if DEVCHECK_MATMUL_DTYPES_CHECKED_IN_CUDA_KERNEL
  const c10::FunctionSchema& schema = op.schema();
  if (schema.name() == "aten::bmm" || schema.name() == "aten::baddbmm" ||
      schema.name() == "aten::baddbmm_") {
    check_batched_matmul_as_a_gpu_does(schema, stack, first);
    return;
  }
  const char* mat1_name = nullptr;
  if (schema.name() == "aten::mm") mat1_name = "self";
  if (schema.name() == "aten::addmm" || schema.name() == "aten::addmm_") mat1_name = "mat1";
  if (mat1_name == nullptr) return;
  const c10::optional<int> a = schema.argumentIndexWithName(mat1_name);
  const c10::optional<int> b = schema.argumentIndexWithName("mat2");
  if (!a || !b) return;
  const c10::IValue& mat1 = stack[first + static_cast<std::size_t>(*a)];
  const c10::IValue& mat2 = stack[first + static_cast<std::size_t>(*b)];
  if (!mat1.isTensor() || !mat2.isTensor()) return;
  TORCH_CHECK(mat1.toTensor().dtype() == mat2.toTensor().dtype(),
              "expected mat1 and mat2 to have the same dtype, but got: ", mat1.toTensor().dtype(),
              " != ", mat2.toTensor().dtype());
#else
  (void)op;
  (void)stack;
  (void)first;
#endif
}

std::size_t run_in_float32(const c10::OperatorHandle& op, torch::jit::Stack* stack,
                           const std::vector<c10::IValue>& args,
                           c10::function_ref<std::size_t(torch::jit::Stack*)> run_cpu) {
  const std::vector<c10::Argument>& arguments = op.schema().arguments();
  // Written arguments: (the 16-bit original, its float32 stand-in).
  std::vector<std::pair<at::Tensor, at::Tensor>> written;
  // What a result is cast back to when the Meta kernel cannot say: the first
  // 16-bit float of the arguments.
  c10::optional<at::ScalarType> half_type;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const c10::Argument& arg = arguments[i];
    if (is_half_dtype(arg, args[i])) {
      if (!half_type) half_type = static_cast<at::ScalarType>(args[i].toInt());
      stack->emplace_back(static_cast<int64_t>(at::kFloat));
      continue;
    }
    if (is_half_to_float(arg, args[i])) {
      stack->emplace_back(false);
      continue;
    }
    const bool writes = arg.alias_info() != nullptr && arg.alias_info()->isWrite();
    stack->push_back(map_tensors(args[i], [&](const at::Tensor& t) {
      if (!t.defined() || !is_16bit_float(t.scalar_type())) return t;
      if (!half_type) half_type = t.scalar_type();
      at::Tensor f = t.to(at::kFloat);
      if (writes) written.emplace_back(t, f);
      return f;
    }));
  }
  const std::vector<c10::optional<at::ScalarType>> want = meta_return_types(op, args);
  const std::size_t num_returns = run_cpu(stack);
  for (auto& w : written) w.first.copy_(w.second);
  const std::size_t base = stack->size() - num_returns;
  for (std::size_t i = base; i < stack->size(); ++i) {
    const c10::optional<at::ScalarType> target =
        want.size() == num_returns ? want[i - base] : half_type;
    (*stack)[i] = map_tensors((*stack)[i], [&](const at::Tensor& t) {
      for (auto& w : written) {
        if (w.second.unsafeGetTensorImpl() == t.unsafeGetTensorImpl()) return w.first;
      }
      if (t.defined() && t.scalar_type() == at::kFloat && target && *target != at::kFloat) {
        return t.to(*target);
      }
      return t;
    });
  }
  return num_returns;
}

}  // namespace devcheck::detail
