// The fake backends' kernels. Fake tensors hold host memory, so an op runs as
// LibTorch's CPU kernel over CPU tensors that alias the fake tensors' storage
// (no copy): views share storage, in-place ops write through, and results
// are the CPU's bit for bit. What makes a fake backend a device of its own is
// the check before each op: a fake tensor meets a non-scalar CPU tensor, or
// device 0 meets device 1, and the op fails with LibTorch's own message, as
// on CUDA. Every kernel is a template over the backend (FakeKind).

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/_has_compatible_shallow_copy_type_ops.h>
#include <ATen/ops/copy_ops.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/SmallVector.h>
#include <torch/library.h>

#include <string_view>
#include <vector>

#include "detail/compat.h"
#include "fake/backend.h"
#include "fake/checks.h"
#include "fake/half.h"
#include "fake/ivalue_tensors.h"

namespace devcheck::detail {
namespace {

template <FakeKind K>
bool is_fake(const at::Tensor& t) {
  return t.defined() && t.device().type() == device_type_of(K);
}

// A tensor of backend `key` over `storage` with `like`'s dtype, geometry,
// conjugate/negative/zero bits (a ZeroTensor, forward-mode AD's undefined
// tangent, has no memory: the bit sends every op to its zero kernels), and
// its inference-ness: inside
// torch.inference_mode() a view of a normal tensor stays a normal tensor
// (autograd then gives it its base's version counter), as the CPU's views do.
at::Tensor tensor_over(c10::Storage storage, c10::DispatchKey key, const at::Tensor& like) {
  c10::optional<c10::InferenceMode> normal;
  if (!like.is_inference() && c10::InferenceMode::is_enabled()) normal.emplace(false);
  c10::DispatchKeySet keys(key);
  // The bit is a dispatch key, set where the tensor is made (_set_zero refuses).
  if (like._is_zerotensor()) keys = keys.add(c10::DispatchKey::ZeroTensor);
  auto impl = c10::make_intrusive<c10::TensorImpl>(std::move(storage), keys, like.dtype());
  impl->set_sizes_and_strides(like.sizes(), like.strides());
  impl->set_storage_offset(like.storage_offset());
  impl->_set_conj(like.is_conj());
  impl->_set_neg(like.is_neg());
  return at::Tensor(std::move(impl));
}

// A fake storage of kind K that owns `cpu` (a CPU storage a kernel made) and
// shows its bytes on device `index`.
template <FakeKind K>
c10::Storage fake_storage_owning(const c10::Storage& cpu, c10::DeviceIndex index) {
  c10::DataPtr ptr = fake_adopt(K, index, cpu);
  return c10::Storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), cpu.nbytes(), std::move(ptr), fake_allocator(K),
      /*resizable=*/true));
}

// The CPU side of one op call: CPU tensors aliasing its fake arguments, and
// the way back for what the op returns or changed.
template <FakeKind K>
class Aliases {
 public:
  explicit Aliases(c10::DeviceIndex index) : index_(index) {}

  // `t` as a CPU tensor over the same bytes; `t` itself when it is not fake.
  at::Tensor to_cpu(const at::Tensor& t) {
    if (!is_fake<K>(t)) return t;
    for (const Pair& p : tensors_) {
      if (p.fake.unsafeGetTensorImpl() == t.unsafeGetTensorImpl()) return p.cpu;
    }
    at::Tensor cpu = tensor_over(storage_alias(t.storage()), c10::DispatchKey::CPU, t);
    tensors_.push_back({t, cpu});
    return cpu;
  }

  // What a kernel returned, as the program must see it: an argument it
  // returned (in-place and out= ops) is that argument; a view of an
  // argument's storage is a fake view of the same storage; anything new is
  // a fake tensor on this call's device that owns the kernel's storage.
  at::Tensor to_fake(const at::Tensor& cpu) {
    if (!cpu.defined()) return cpu;
    for (const Pair& p : tensors_) {
      if (p.cpu.unsafeGetTensorImpl() == cpu.unsafeGetTensorImpl()) return p.fake;
    }
    // A non-fake argument handed back as it was (an out= tensor on the CPU).
    if (!cpu.is_cpu()) return cpu;
    TORCH_CHECK(cpu.layout() == c10::kStrided && cpu.has_storage(), "fake ", device_type_of(K),
                ": an op returned a ", cpu.layout(),
                " tensor; a fake device holds strided tensors only");
    for (const StoragePair& s : storages_) {
      if (s.cpu.unsafeGetStorageImpl() == cpu.storage().unsafeGetStorageImpl()) {
        return tensor_over(s.fake, dispatch_key_of(K), cpu);
      }
    }
    return tensor_over(fake_storage_owning<K>(cpu.storage(), index_), dispatch_key_of(K), cpu);
  }

  // Carries back what a kernel changed in place beyond the bytes: a new
  // shape (resize_, as_strided_), new memory (a resized out= tensor).
  void write_back() {
    for (const StoragePair& s : storages_) {
      if (s.cpu.data() == s.fake.data() && s.cpu.nbytes() == s.fake.nbytes()) continue;
      c10::StorageImpl* fake = s.fake.unsafeGetStorageImpl();
      fake->set_data_ptr_noswap(fake_adopt(K, s.fake.device().index(), s.cpu));
      fake->set_nbytes(s.cpu.nbytes());
    }
    for (const Pair& p : tensors_) {
      if (p.fake.sizes() == p.cpu.sizes() && p.fake.strides() == p.cpu.strides() &&
          p.fake.storage_offset() == p.cpu.storage_offset()) {
        continue;
      }
      c10::TensorImpl* impl = p.fake.unsafeGetTensorImpl();
      impl->set_sizes_and_strides(p.cpu.sizes(), p.cpu.strides());
      impl->set_storage_offset(p.cpu.storage_offset());
    }
  }

 private:
  struct Pair {
    at::Tensor fake;
    at::Tensor cpu;
  };
  struct StoragePair {
    c10::Storage fake;
    c10::Storage cpu;
  };

  // One CPU storage per fake storage, so arguments that share memory still
  // do (overlap checks, in-place ops on views of one base). It borrows the
  // bytes: the fake tensors outlive the call. Resizable: a kernel that grows
  // it gets new CPU memory, which write_back() hands to the fake storage.
  c10::Storage storage_alias(const c10::Storage& fake) {
    for (const StoragePair& s : storages_) {
      if (s.fake.unsafeGetStorageImpl() == fake.unsafeGetStorageImpl()) return s.cpu;
    }
    c10::Storage cpu(c10::make_intrusive<c10::StorageImpl>(
        c10::StorageImpl::use_byte_size_t(), fake.nbytes(),
        c10::DataPtr(DEVCHECK_STORAGE_MUTABLE_DATA(fake), c10::Device(c10::kCPU)),
        c10::GetCPUAllocator(), /*resizable=*/true));
    storages_.push_back({fake, cpu});
    return cpu;
  }

  c10::DeviceIndex index_;
  c10::SmallVector<Pair, 4> tensors_;
  c10::SmallVector<StoragePair, 4> storages_;
};

bool is_optional_generator(const c10::Argument& a) {
  const c10::TypePtr& t = a.type();
  return t->kind() == c10::TypeKind::OptionalType &&
         t->castRaw<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::GeneratorType;
}

const c10::DispatchKeySet kCpuKeys(c10::DispatchKey::CPU);

// Runs `op` (whose arguments are on the stack) as a CPU computation over
// aliases of its fake arguments: checks their devices, swaps in the aliases
// (and, where the op draws random numbers from its default generator, the
// device's generator), lets `run_cpu` compute, and hands back what it
// returned as fake tensors. Where the CPU lacks a Half kernel or path, the
// op runs in float32 (half.h).
template <FakeKind K, typename RunCpu>
void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack, RunCpu&& run_cpu) {
  if constexpr (K == FakeKind::kCuda) {
    TORCH_CHECK(!fake_cuda_in_bad_fork(), fake_cuda_bad_fork_message());
  }
  const c10::FunctionSchema& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  const size_t first = stack->size() - num_args;

  const c10::Device device = check_devices(K, op, *stack, first);
  move_cpu_indices(K, op, *stack, first, device);  // as a GPU's index does: a counted copy
  const c10::DeviceGuard guard(device);
  const FakeOpScope scope(K, device.index());

  Aliases<K> aliases(device.index());
  for (size_t i = 0; i < num_args; ++i) {
    c10::IValue& v = (*stack)[first + i];
    if (v.isDevice()) {
      if (v.toDevice().type() == device_type_of(K)) v = c10::IValue(c10::Device(c10::kCPU));
    } else if (K == FakeKind::kCuda && v.isNone() && is_optional_generator(schema.arguments()[i])) {
      v = c10::IValue(fake_generator(K, device.index()));
    } else {
      v = map_tensors(v, [&](const at::Tensor& t) { return aliases.to_cpu(t); });
    }
  }

  size_t num_returns = 0;
  const HalfUse half = half_use(op, *stack, first);
  if (half == HalfUse::kNone) {
    num_returns = run_cpu(stack);
  } else {
    check_half_as_a_gpu_does(op, *stack, first);
    const std::vector<c10::IValue> saved(stack->begin() + static_cast<std::ptrdiff_t>(first),
                                         stack->end());
    if (cpu_fails_half_path(op, *stack, first)) {
      stack->resize(first);
      num_returns = run_in_float32(op, stack, saved, run_cpu);
    } else {
      try {
        num_returns = run_cpu(stack);
      } catch (const c10::Error& e) {
        if (!cpu_lacks_half_path(e, half)) throw;
        stack->resize(first);
        num_returns = run_in_float32(op, stack, saved, run_cpu);
      }
    }
  }

  aliases.write_back();
  for (size_t i = stack->size() - num_returns; i < stack->size(); ++i) {
    (*stack)[i] = map_tensors((*stack)[i], [&](const at::Tensor& t) { return aliases.to_fake(t); });
  }
}

// Every op without a kernel of its own: its CPU kernel. An op the CPU has no
// kernel for (one registered for CUDA only) fails naming the op.
template <FakeKind K>
void fake_fallback(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                   torch::jit::Stack* stack) {
  run_on_cpu<K>(op, stack, [&](torch::jit::Stack* s) {
    try {
      op.redispatchBoxed(kCpuKeys, s);
    } catch (const c10::NotImplementedError& e) {
      // The dispatcher's "Could not run '<op>' with arguments from the 'CPU'
      // backend": this op has kernels for real devices only.
      const std::string& name = op.schema().name();
      if (e.msg().rfind("Could not run '" + name + "'", 0) != 0) throw;
      TORCH_CHECK_NOT_IMPLEMENTED(
          false, "fake ", device_type_of(K), ": ", op.schema().operator_name(),
          " has no CPU kernel (it was registered for real devices only), and a fake ",
          device_type_of(K), " device runs CPU kernels; a program that calls it needs a ",
          "real device, or a CPU kernel for the op");
    }
    return op.schema().returns().size();
  });
}

// The CPU's convolution for either of LibTorch's entry points: on a device it
// does not know, LibTorch sends convolution to convolution_overrideable (the
// fake accelerator); on CUDA it takes _convolution's CUDA branches (depthwise
// and cuDNN kernels) unless convolution itself has a CUDA kernel (fake CUDA).
// aten::convolution on the CPU aliases picks the same algorithm as for CPU
// tensors, so results are equal bit for bit.
//
// A GPU build's _convolution takes cuDNN for a CUDA input, which first checks
// that weight and bias have the input's type (device and dtype), in its own
// words ("Input type (CUDAFloatType) and weight type (CPUFloatType) should
// be the same"; Python shows the types as torch.cuda.FloatTensor and
// torch.FloatTensor); a CPU input with a CUDA weight takes MKLDNN's check.
void check_convolution_types(const at::Tensor& input, const at::Tensor& weight,
                             const c10::optional<at::Tensor>& bias) {
  const bool mkldnn = input.is_cpu() && input.scalar_type() == at::kFloat;
  const char* tail = mkldnn ? " should be the same or input should be a MKLDNN tensor and "
                            : " should be the same";
  TORCH_CHECK(input.options().type_equal(weight.options()), "Input type (", input.toString(),
              ") and weight type (", weight.toString(), ")", tail,
              mkldnn ? "weight is a dense tensor" : "");
  TORCH_CHECK(!bias || !bias->defined() || input.options().type_equal(bias->options()),
              "Input type (", input.toString(), ") and bias type (", bias->toString(), ")", tail,
              mkldnn ? "bias is a dense tensor" : "");
}

template <FakeKind K>
void fake_convolution(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                      torch::jit::Stack* stack) {
  static const c10::OperatorHandle conv =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
  if constexpr (K == FakeKind::kCuda) {
    const auto args = torch::jit::last(*stack, op.schema().arguments().size());
    check_convolution_types(args[0].toTensor(), args[1].toTensor(),
                            args[2].toOptional<at::Tensor>());
  }
  run_on_cpu<K>(op, stack, [&](torch::jit::Stack* s) {
    conv.redispatchBoxed(kCpuKeys, s);
    return size_t{1};
  });
}

// Its backward: aten::convolution_backward (convolution_backward_overrideable
// lacks the bias's sizes, which are the output channels: grad_output's
// dimension 1).
template <FakeKind K>
void fake_convolution_backward(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                               torch::jit::Stack* stack) {
  static const c10::OperatorHandle backward =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution_backward", "");
  const bool overrideable = op.schema().name() == "aten::convolution_backward_overrideable";
  run_on_cpu<K>(op, stack, [&](torch::jit::Stack* s) {
    if (overrideable) {
      const size_t first = s->size() - op.schema().arguments().size();
      const int64_t channels = (*s)[first].toTensor().size(1);
      s->insert(s->begin() + static_cast<std::ptrdiff_t>(first + 3),
                c10::IValue(std::vector<int64_t>{channels}));
    }
    backward.redispatchBoxed(kCpuKeys, s);
    return size_t{3};
  });
}

// Copies cross devices by design (cpu <-> fake, device 0 <-> device 1), so
// they skip the device check; the CPU kernel does broadcasting and dtype
// changes.
template <FakeKind K>
at::Tensor& fake_copy_(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  if constexpr (K == FakeKind::kCuda) {
    TORCH_CHECK(!fake_cuda_in_bad_fork(), fake_cuda_bad_fork_message());
  }
  Aliases<K> aliases(is_fake<K>(self) ? self.device().index() : src.device().index());
  at::Tensor dst = aliases.to_cpu(self);
  at::_ops::copy_::redispatch(kCpuKeys, dst, aliases.to_cpu(src), non_blocking);
  return self;
}

// Variable::set_data() (what Module::to() does to each parameter) asks
// whether the new tensor's type may replace the old one's in place;
// LibTorch 1.13 says yes only among CPU, CUDA, HIP, MPS and XPU dense
// tensors. Host-memory dense tensors on a fake device are as compatible.
template <FakeKind K>
bool fake_shallow_copy_compatible(const at::Tensor& self, const at::Tensor& from) {
  auto dense = [](const at::Tensor& t) {
    return t.layout() == c10::kStrided && (t.is_cpu() || is_fake<K>(t)) && !t.is_quantized();
  };
  if (dense(self) && dense(from)) return true;
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

// A registration block that lives for the process (a Library unregisters
// its kernels when destroyed).
torch::Library& new_library(torch::Library::Kind kind, const char* ns, c10::DispatchKey key,
                            int line) {
  return *new torch::Library(kind, ns, key, __FILE__, static_cast<std::uint32_t>(line));
}

template <FakeKind K>
void register_kernels_of() {
  constexpr c10::DispatchKey kKey = dispatch_key_of(K);
  c10::SetAllocator(device_type_of(K), fake_allocator(K), kFakeAllocatorPriority);
  install_fake_op_cpu_allocator();
  // The fake accelerator runs every op on the CPU; fake CUDA runs the ops a
  // CUDA build has CUDA kernels for (cuda/cuda.cc) and lets the others fail
  // as on a GPU.
  if constexpr (K == FakeKind::kAccelerator) {
    new_library(torch::Library::IMPL, "_", kKey, __LINE__)
        .fallback(torch::CppFunction::makeFromBoxedFunction<&fake_fallback<K>>());
  }
  torch::Library& m = new_library(torch::Library::IMPL, "aten", kKey, __LINE__);
  register_fake_factories(K, m);
  m.impl("copy_", TORCH_FN(fake_copy_<K>));
  m.impl("_has_compatible_shallow_copy_type", TORCH_FN(fake_shallow_copy_compatible<K>));
  if constexpr (K == FakeKind::kCuda) {
    m.impl("convolution", torch::CppFunction::makeFromBoxedFunction<&fake_convolution<K>>());
    m.impl("convolution_backward",
           torch::CppFunction::makeFromBoxedFunction<&fake_convolution_backward<K>>());
  } else {
    m.impl("convolution_overrideable",
           torch::CppFunction::makeFromBoxedFunction<&fake_convolution<K>>());
    m.impl("convolution_backward_overrideable",
           torch::CppFunction::makeFromBoxedFunction<&fake_convolution_backward<K>>());
  }
  // LibTorch already counts CUDA's dense tensors as compatible.
  if constexpr (K == FakeKind::kAccelerator) {
    new_library(torch::Library::IMPL, "aten", c10::DispatchKey::AutogradPrivateUse1, __LINE__)
        .impl("_has_compatible_shallow_copy_type", TORCH_FN(fake_shallow_copy_compatible<K>));
  }
}

}  // namespace

void register_fake_kernels(FakeKind kind) {
  if (kind == FakeKind::kCuda) {
    register_kernels_of<FakeKind::kCuda>();
  } else {
    register_kernels_of<FakeKind::kAccelerator>();
  }
}

torch::CppFunction fake_fallback_function(FakeKind kind) {
  if (kind == FakeKind::kCuda) {
    return torch::CppFunction::makeFromBoxedFunction<&fake_fallback<FakeKind::kCuda>>();
  }
  return torch::CppFunction::makeFromBoxedFunction<&fake_fallback<FakeKind::kAccelerator>>();
}

at::Tensor fake_tensor_owning(FakeKind kind, const at::Tensor& cpu, c10::DeviceIndex index) {
  if (!cpu.defined()) return cpu;
  if (kind == FakeKind::kCuda) {
    return tensor_over(fake_storage_owning<FakeKind::kCuda>(cpu.storage(), index),
                       dispatch_key_of(kind), cpu);
  }
  return tensor_over(fake_storage_owning<FakeKind::kAccelerator>(cpu.storage(), index),
                     dispatch_key_of(kind), cpu);
}

at::Tensor fake_cpu_alias(const at::Tensor& t) {
  if (!t.defined() || t.is_cpu()) return t;
  c10::Storage cpu(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), t.storage().nbytes(),
      c10::DataPtr(DEVCHECK_STORAGE_MUTABLE_DATA(t.storage()), c10::Device(c10::kCPU)),
      c10::GetCPUAllocator(), /*resizable=*/false));
  return tensor_over(std::move(cpu), c10::DispatchKey::CPU, t);
}

}  // namespace devcheck::detail
