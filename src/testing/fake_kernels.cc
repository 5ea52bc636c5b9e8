// The fake device's kernels. Fake tensors hold host memory, so an op runs as
// LibTorch's CPU kernel over CPU tensors that alias the fake tensors' storage
// (no copy): views share storage, in-place ops write through, and results
// are the CPU's bit for bit. What makes it a device of its own is the check
// before each op: a fake tensor meets a non-scalar CPU tensor, or fake:0
// meets fake:1, and the op fails with LibTorch's own message, as on CUDA.

#include <ATen/EmptyTensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/_has_compatible_shallow_copy_type_ops.h>
#include <ATen/ops/copy_ops.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/SmallVector.h>
#include <torch/library.h>

#include <string_view>

#include "detail/compat.h"
#include "testing/fake_internal.h"

namespace devcheck::detail {
namespace {

constexpr c10::DeviceType kFake = c10::DeviceType::PrivateUse1;

bool is_fake(const at::Tensor& t) { return t.defined() && t.device().type() == kFake; }

void delete_storage_ctx(void* ctx) { delete static_cast<c10::Storage*>(ctx); }

// A tensor of backend `key` over `storage` with `like`'s dtype, geometry and
// conjugate/negative bits.
at::Tensor tensor_over(c10::Storage storage, c10::DispatchKey key, const at::Tensor& like) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(std::move(storage), c10::DispatchKeySet(key),
                                                   like.dtype());
  impl->set_sizes_and_strides(like.sizes(), like.strides());
  impl->set_storage_offset(like.storage_offset());
  impl->_set_conj(like.is_conj());
  impl->_set_neg(like.is_neg());
  return at::Tensor(std::move(impl));
}

// A fake tensor over `storage` (a fake storage) with `like`'s geometry.
at::Tensor fake_tensor_over(c10::Storage storage, const at::Tensor& like) {
  return tensor_over(std::move(storage), c10::DispatchKey::PrivateUse1, like);
}

// A fake storage that owns `cpu` (a CPU storage a kernel made) and shows its bytes on fake `index`.
c10::Storage fake_storage_owning(const c10::Storage& cpu, c10::DeviceIndex index) {
  void* data = DEVCHECK_STORAGE_MUTABLE_DATA(cpu);
  c10::DataPtr ptr(data, new c10::Storage(cpu), &delete_storage_ctx, c10::Device(kFake, index));
  return c10::Storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), cpu.nbytes(), std::move(ptr), fake_allocator(),
      /*resizable=*/true));
}

// The CPU side of one op call: CPU tensors aliasing its fake arguments, and
// the way back for what the op returns or changed.
class Aliases {
 public:
  explicit Aliases(c10::DeviceIndex index) : index_(index) {}

  // `t` as a CPU tensor over the same bytes; `t` itself when it is not fake.
  at::Tensor to_cpu(const at::Tensor& t) {
    if (!is_fake(t)) return t;
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
    TORCH_CHECK(cpu.layout() == c10::kStrided && cpu.has_storage(),
                "fake device: an op returned a ", cpu.layout(),
                " tensor; the fake device holds strided tensors only");
    for (const StoragePair& s : storages_) {
      if (s.cpu.unsafeGetStorageImpl() == cpu.storage().unsafeGetStorageImpl()) {
        return fake_tensor_over(s.fake, cpu);
      }
    }
    return fake_tensor_over(fake_storage_owning(cpu.storage(), index_), cpu);
  }

  // Carries back what a kernel changed in place beyond the bytes: a new
  // shape (resize_, as_strided_), new memory (a resized out= tensor).
  void write_back() {
    for (const StoragePair& s : storages_) {
      if (s.cpu.data() == s.fake.data() && s.cpu.nbytes() == s.fake.nbytes()) continue;
      c10::StorageImpl* fake = s.fake.unsafeGetStorageImpl();
      void* data = DEVCHECK_STORAGE_MUTABLE_DATA(s.cpu);
      fake->set_data_ptr_noswap(c10::DataPtr(data, new c10::Storage(s.cpu), &delete_storage_ctx,
                                             c10::Device(kFake, s.fake.device().index())));
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

// Ops that take CPU index tensors with device tensors, as CUDA allows.
bool takes_cpu_indices(std::string_view op) {
  return op == "aten::index" || op == "aten::index_put_" || op == "aten::index_put" ||
         op == "aten::_index_put_impl_";
}

// Where an op's fake arguments are, after checking that they agree. The
// message is LibTorch's own (TensorIterator's and the generated device
// checks' wording), so code that matches on it works on the fake device.
class DeviceCheck {
 public:
  explicit DeviceCheck(const c10::OperatorHandle& op) : op_(op) {
    const std::string& name = op.schema().name();
    cpu_indices_ = takes_cpu_indices(name);
  }

  void see(const at::Tensor& t, size_t arg, bool in_list) {
    if (!t.defined()) return;
    const c10::Device d = t.device();
    if (d.type() == kFake) {
      if (!common_) {
        common_ = d;
        // A CPU tensor seen before the first fake one is checked now.
        if (pending_cpu_) fail(*pending_cpu_, pending_arg_);
        return;
      }
      if (d != *common_) fail(d, arg);
      return;
    }
    if (d.is_cpu() && (t.dim() == 0 || (cpu_indices_ && in_list))) return;
    if (!common_) {
      if (!pending_cpu_) {
        pending_cpu_ = d;
        pending_arg_ = arg;
      }
      return;
    }
    fail(d, arg);
  }

  void see_device(c10::Device d) {
    if (d.type() == kFake && !common_) common_ = d;
  }

  c10::optional<c10::Device> common() const { return common_; }

 private:
  [[noreturn]] void fail(c10::Device other, size_t arg) const {
    const auto& args = op_.schema().arguments();
    const std::string arg_name = arg < args.size() ? args[arg].name() : std::to_string(arg);
    TORCH_CHECK(false,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                *common_, " and ", other, "! (when checking argument for argument ", arg_name,
                " in method ", op_.schema().operator_name(), ")");
  }

  const c10::OperatorHandle& op_;
  bool cpu_indices_ = false;
  c10::optional<c10::Device> common_;
  c10::optional<c10::Device> pending_cpu_;
  size_t pending_arg_ = 0;
};

// A tensor list (Tensor[], Tensor?[]) is a list of IValues underneath.
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

template <typename F>
c10::IValue map_tensors(const c10::IValue& v, F&& f) {
  if (v.isTensor()) return f(v.toTensor());
  if (!v.isList()) return v;
  bool any = false;
  for (const c10::IValue& e : v.toListRef()) any = any || e.isTensor();
  if (!any) return v;
  c10::impl::GenericList out(v.toList().elementType());
  out.reserve(v.toListRef().size());
  for (const c10::IValue& e : v.toListRef()) out.push_back(e.isTensor() ? f(e.toTensor()) : e);
  return out;
}

// Runs `op` (whose arguments are on the stack) as a CPU computation over
// aliases of its fake arguments: checks their devices, swaps in the aliases,
// lets `run_cpu` compute, and hands back what it returned as fake tensors.
template <typename RunCpu>
void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack, RunCpu&& run_cpu) {
  const size_t num_args = op.schema().arguments().size();
  const size_t first = stack->size() - num_args;

  DeviceCheck check(op);
  for (size_t i = 0; i < num_args; ++i) {
    const c10::IValue& v = (*stack)[first + i];
    if (v.isDevice()) {
      check.see_device(v.toDevice());
    } else {
      for_each_tensor(v, [&](const at::Tensor& t, bool in_list) { check.see(t, i, in_list); });
    }
  }
  const c10::optional<c10::Device> device = check.common();
  TORCH_INTERNAL_ASSERT(device.has_value(), "fake device: ", op.schema().operator_name(),
                        " reached the fake backend without a fake argument");
  const c10::DeviceGuard guard(*device);

  Aliases aliases(device->index());
  for (size_t i = 0; i < num_args; ++i) {
    c10::IValue& v = (*stack)[first + i];
    if (v.isDevice() && v.toDevice().type() == kFake) {
      v = c10::IValue(c10::Device(c10::kCPU));
    } else {
      v = map_tensors(v, [&](const at::Tensor& t) { return aliases.to_cpu(t); });
    }
  }

  const size_t num_returns = run_cpu(stack);

  aliases.write_back();
  for (size_t i = stack->size() - num_returns; i < stack->size(); ++i) {
    (*stack)[i] = map_tensors((*stack)[i], [&](const at::Tensor& t) { return aliases.to_fake(t); });
  }
}

const c10::DispatchKeySet kCpuKeys(c10::DispatchKey::CPU);

// Every op without a kernel of its own: its CPU kernel.
void fake_fallback(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                   torch::jit::Stack* stack) {
  run_on_cpu(op, stack, [&](torch::jit::Stack* s) {
    op.redispatchBoxed(kCpuKeys, s);
    return op.schema().returns().size();
  });
}

// LibTorch sends a convolution on a device it does not know to
// convolution_overrideable (whose default throws): run aten::convolution,
// which has the same arguments, on the CPU aliases. The CPU then picks the
// same algorithm as for CPU tensors, so results are equal bit for bit.
void fake_convolution(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                      torch::jit::Stack* stack) {
  static const c10::OperatorHandle conv =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
  run_on_cpu(op, stack, [&](torch::jit::Stack* s) {
    conv.redispatchBoxed(kCpuKeys, s);
    return size_t{1};
  });
}

// Its backward: aten::convolution_backward takes the bias's sizes after the
// weight (the output channels: grad_output's dimension 1).
void fake_convolution_backward(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                               torch::jit::Stack* stack) {
  static const c10::OperatorHandle backward =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution_backward", "");
  run_on_cpu(op, stack, [&](torch::jit::Stack* s) {
    const size_t first = s->size() - op.schema().arguments().size();
    const int64_t channels = (*s)[first].toTensor().size(1);
    s->insert(s->begin() + static_cast<std::ptrdiff_t>(first + 3),
              c10::IValue(std::vector<int64_t>{channels}));
    backward.redispatchBoxed(kCpuKeys, s);
    return size_t{3};
  });
}

c10::Device fake_target(c10::optional<c10::Device> device) {
  if (!device || !device->has_index()) return {kFake, fake_current_index()};
  return *device;
}

at::Tensor fake_empty(c10::IntArrayRef size, c10::optional<c10::ScalarType> dtype,
                      c10::optional<c10::Layout> layout, c10::optional<c10::Device> device,
                      c10::optional<bool> /*pin_memory*/,
                      c10::optional<c10::MemoryFormat> memory_format) {
  TORCH_CHECK(layout.value_or(c10::kStrided) == c10::kStrided,
              "fake device: only strided tensors are supported, got layout ", *layout);
  const c10::DeviceGuard guard(fake_target(device));
  return at::detail::empty_generic(
      size, fake_allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      dtype.value_or(c10::get_default_dtype_as_scalartype()), memory_format);
}

at::Tensor fake_empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                              c10::optional<c10::ScalarType> dtype,
                              c10::optional<c10::Layout> layout, c10::optional<c10::Device> device,
                              c10::optional<bool> /*pin_memory*/) {
  TORCH_CHECK(layout.value_or(c10::kStrided) == c10::kStrided,
              "fake device: only strided tensors are supported, got layout ", *layout);
  const c10::DeviceGuard guard(fake_target(device));
  return at::detail::empty_strided_generic(size, stride, fake_allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           dtype.value_or(c10::get_default_dtype_as_scalartype()));
}

// Copies cross devices by design (cpu <-> fake, fake:0 <-> fake:1), so they
// skip the device check; the CPU kernel does broadcasting and dtype changes.
at::Tensor& fake_copy_(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  Aliases aliases(is_fake(self) ? self.device().index() : src.device().index());
  at::Tensor dst = aliases.to_cpu(self);
  at::_ops::copy_::redispatch(c10::DispatchKeySet(c10::DispatchKey::CPU), dst, aliases.to_cpu(src),
                              non_blocking);
  return self;
}

// Variable::set_data() (what Module::to() does to each parameter) asks
// whether the new tensor's type may replace the old one's in place;
// LibTorch 1.13 says yes only among CPU, CUDA, HIP, MPS and XPU dense
// tensors. Host-memory dense tensors on the fake device are as compatible.
bool fake_shallow_copy_compatible(const at::Tensor& self, const at::Tensor& from) {
  auto dense = [](const at::Tensor& t) {
    return t.layout() == c10::kStrided && (t.is_cpu() || t.device().type() == kFake) &&
           !t.is_quantized();
  };
  if (dense(self) && dense(from)) return true;
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

// tensor.set_(storage, offset, size, stride) with a fake storage (what
// devcheck's checkpoint loader does): the CPU kernel would refuse a storage
// that is not on the CPU, and the tensor must keep the fake storage itself.
void fake_set_storage(const c10::OperatorHandle& /*op*/, c10::DispatchKeySet /*keys*/,
                      torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 5);
  at::Tensor self = args[0].toTensor();
  c10::Storage source = args[1].toStorage();
  const int64_t offset = args[2].toInt();
  const std::vector<int64_t> size = args[3].toIntVector();
  const std::vector<int64_t> stride = args[4].toIntVector();
  TORCH_CHECK(source.device() == self.device(), "Expected a Storage on ", self.device(),
              " for set_ on a tensor there, but got a Storage on ", source.device());
  TORCH_CHECK(size.size() == stride.size(), "set_: ", size.size(), " sizes but ", stride.size(),
              " strides");
  int64_t last = offset;  // the furthest element the view reaches
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    TORCH_CHECK(size[i] >= 0 && stride[i] >= 0, "set_: negative size or stride");
    empty = empty || size[i] == 0;
    last += (size[i] - 1) * stride[i];
  }
  const auto itemsize = static_cast<int64_t>(self.dtype().itemsize());
  TORCH_CHECK(
      offset >= 0 && (empty || (last + 1) * itemsize <= static_cast<int64_t>(source.nbytes())),
      "set_: the view (offset ", offset, ", sizes ", c10::IntArrayRef(size), ", strides ",
      c10::IntArrayRef(stride), ") is out of bounds for a storage of ", source.nbytes(), " bytes");
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(std::move(source));
  impl->set_sizes_and_strides(size, stride);
  impl->set_storage_offset(offset);
  torch::jit::drop(*stack, 5);
  torch::jit::push(*stack, std::move(self));
}

}  // namespace

void register_fake_kernels() {
  c10::SetAllocator(kFake, fake_allocator());
  static auto* fallback =
      new torch::Library(torch::Library::IMPL, "_", c10::DispatchKey::PrivateUse1, __FILE__,
                         static_cast<std::uint32_t>(__LINE__));
  fallback->fallback(torch::CppFunction::makeFromBoxedFunction<&fake_fallback>());
  static auto* kernels =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1, __FILE__,
                         static_cast<std::uint32_t>(__LINE__));
  kernels->impl("empty.memory_format", TORCH_FN(fake_empty));
  kernels->impl("empty_strided", TORCH_FN(fake_empty_strided));
  kernels->impl("copy_", TORCH_FN(fake_copy_));
  kernels->impl("_has_compatible_shallow_copy_type", TORCH_FN(fake_shallow_copy_compatible));
  kernels->impl("set_.source_Storage_storage_offset",
                torch::CppFunction::makeFromBoxedFunction<&fake_set_storage>());
  kernels->impl("convolution_overrideable",
                torch::CppFunction::makeFromBoxedFunction<&fake_convolution>());
  kernels->impl("convolution_backward_overrideable",
                torch::CppFunction::makeFromBoxedFunction<&fake_convolution_backward>());
  static auto* autograd =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::AutogradPrivateUse1,
                         __FILE__, static_cast<std::uint32_t>(__LINE__));
  autograd->impl("_has_compatible_shallow_copy_type", TORCH_FN(fake_shallow_copy_compatible));
  register_fake_backend_extras();
}

}  // namespace devcheck::detail
