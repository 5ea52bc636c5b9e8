// The fake backends' kernels that make a tensor's memory rather than compute:
// empty and empty_strided allocate on the fake device; the set_ overloads
// give a tensor a fake storage (checkpoint loaders, torch.load, storage
// sharing) where the CPU kernels would refuse one that is not on the CPU.

#include <ATen/EmptyTensor.h>
#include <ATen/core/stack.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/TensorImpl.h>
#include <torch/library.h>

#include <utility>
#include <vector>

#include "detail/compat.h"
#include "fake/backend.h"

namespace devcheck::detail {
namespace {

template <FakeKind K>
c10::Device fake_target(c10::optional<c10::Device> device) {
  const c10::DeviceIndex index = fake_index_or_current(K, device);
  fake_check_index(K, index, "empty");
  return {device_type_of(K), index};
}

template <FakeKind K>
at::Tensor fake_empty(c10::IntArrayRef size, c10::optional<c10::ScalarType> dtype,
                      c10::optional<c10::Layout> layout, c10::optional<c10::Device> device,
                      c10::optional<bool> /*pin_memory*/,
                      c10::optional<c10::MemoryFormat> memory_format) {
  if constexpr (K == FakeKind::kCuda) {
    TORCH_CHECK(!fake_cuda_in_bad_fork(), fake_cuda_bad_fork_message());
    fake_cuda_mark_used();
  }
  TORCH_CHECK(layout.value_or(c10::kStrided) == c10::kStrided, "fake ", device_type_of(K),
              ": only strided tensors are supported, got layout ", *layout);
  const c10::DeviceGuard guard(fake_target<K>(device));
  return at::detail::empty_generic(size, fake_allocator(K), c10::DispatchKeySet(dispatch_key_of(K)),
                                   dtype.value_or(c10::get_default_dtype_as_scalartype()),
                                   memory_format);
}

template <FakeKind K>
at::Tensor fake_empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                              c10::optional<c10::ScalarType> dtype,
                              c10::optional<c10::Layout> layout, c10::optional<c10::Device> device,
                              c10::optional<bool> /*pin_memory*/) {
  if constexpr (K == FakeKind::kCuda) {
    TORCH_CHECK(!fake_cuda_in_bad_fork(), fake_cuda_bad_fork_message());
    fake_cuda_mark_used();
  }
  TORCH_CHECK(layout.value_or(c10::kStrided) == c10::kStrided, "fake ", device_type_of(K),
              ": only strided tensors are supported, got layout ", *layout);
  const c10::DeviceGuard guard(fake_target<K>(device));
  return at::detail::empty_strided_generic(size, stride, fake_allocator(K),
                                           c10::DispatchKeySet(dispatch_key_of(K)),
                                           dtype.value_or(c10::get_default_dtype_as_scalartype()));
}

// tensor.set_(storage, ...) with a fake storage (checkpoint loaders,
// torch.load, storage sharing): the CPU kernel would refuse a storage that
// is not on the CPU, and the tensor must keep the fake storage itself.
void set_geometry(at::Tensor& self, c10::Storage storage, int64_t offset, c10::IntArrayRef size,
                  c10::IntArrayRef stride) {
  TORCH_CHECK(storage.device() == self.device(),
              "Attempted to set the storage of a tensor on device \"", self.device(),
              "\" to a storage on different device \"", storage.device(),
              "\".  This is no longer allowed; the devices must match.");
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
      offset >= 0 && (empty || (last + 1) * itemsize <= static_cast<int64_t>(storage.nbytes())),
      "set_: the view (offset ", offset, ", sizes ", size, ", strides ", stride,
      ") is out of bounds for a storage of ", storage.nbytes(), " bytes");
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(std::move(storage));
  impl->set_sizes_and_strides(size, stride);
  impl->set_storage_offset(offset);
}

void fake_set_storage(const c10::OperatorHandle& /*op*/, c10::DispatchKeySet /*keys*/,
                      torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 5);
  at::Tensor self = args[0].toTensor();
  const std::vector<int64_t> size = args[3].toIntVector();
  const std::vector<int64_t> stride = args[4].toIntVector();
  set_geometry(self, args[1].toStorage(), args[2].toInt(), size, stride);
  torch::jit::drop(*stack, 5);
  torch::jit::push(*stack, std::move(self));
}

at::Tensor& fake_set_source_storage(at::Tensor& self, c10::Storage source) {
  const auto n = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  set_geometry(self, std::move(source), 0, {n}, {1});
  return self;
}

at::Tensor& fake_set_source_tensor(at::Tensor& self, const at::Tensor& source) {
  if (self.unsafeGetTensorImpl() != source.unsafeGetTensorImpl()) {
    set_geometry(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
  }
  return self;
}

template <FakeKind K>
at::Tensor& fake_set_empty(at::Tensor& self) {
  c10::Storage empty(c10::Storage::use_byte_size_t(), 0, fake_allocator(K), /*resizable=*/true);
  set_geometry(self, std::move(empty), 0, {0}, {1});
  return self;
}

template <FakeKind K>
void register_factories_of(torch::Library& aten) {
  aten.impl("empty.memory_format", TORCH_FN(fake_empty<K>));
  aten.impl("empty_strided", TORCH_FN(fake_empty_strided<K>));
  aten.impl("set_.source_Storage_storage_offset",
            torch::CppFunction::makeFromBoxedFunction<&fake_set_storage>());
  aten.impl("set_.source_Storage", TORCH_FN(fake_set_source_storage));
  aten.impl("set_.source_Tensor", TORCH_FN(fake_set_source_tensor));
  aten.impl("set_", TORCH_FN(fake_set_empty<K>));
}

}  // namespace

void register_fake_factories(FakeKind kind, torch::Library& aten) {
  if (kind == FakeKind::kCuda) {
    register_factories_of<FakeKind::kCuda>(aten);
  } else {
    register_factories_of<FakeKind::kAccelerator>(aten);
  }
}

}  // namespace devcheck::detail
