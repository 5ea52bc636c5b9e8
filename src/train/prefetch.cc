#include "devcheck/prefetch.h"

#include <ATen/ATen.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "detail/staged_copy_label.h"

namespace devcheck::detail {
namespace {

// Devices whose copies can be ordered by streams and events. The CPU and meta
// have no streams worth the name (their copies are synchronous or do nothing).
bool has_streams(c10::DeviceType type) {
  return type != c10::kCPU && type != c10::kMeta && c10::impl::hasDeviceGuardImpl(type);
}

}  // namespace

Stager::Stager(const PrefetchOptions& options) : device_(options.device()) {
  if (!has_streams(device_.type())) return;
  const c10::impl::VirtualGuardImpl impl(device_.type());
  if (!device_.has_index()) device_ = c10::Device(device_.type(), impl.getDevice().index());
  side_stream_ = impl.getStreamFromGlobalPool(device_, /*isHighPriority=*/false);
  pins_ = options.pin_memory() && device_.is_cuda();
}

at::Tensor Stager::stack(const std::vector<at::Tensor>& tensors) const {
  if (!pins_ || tensors.empty()) return at::stack(tensors);
  std::vector<int64_t> sizes{static_cast<int64_t>(tensors.size())};
  const auto sample = tensors.front().sizes();
  sizes.insert(sizes.end(), sample.begin(), sample.end());
  at::Tensor out = at::empty(sizes, tensors.front().options().pinned_memory(true));
  at::stack_out(out, tensors);
  return out;
}

at::Tensor Stager::pin(const at::Tensor& t) const {
  if (!pins_ || !t.defined() || !t.is_cpu() || t.is_pinned()) return t;
  return at::empty(t.sizes(), t.options().pinned_memory(true)).copy_(t);
}

at::Tensor Stager::copy(const at::Tensor& t) const {
  if (!t.defined() || t.device() == device_) return t;
  const detail::StagingScope staging("devcheck::DevicePrefetcher (batch staging)");
  return t.to(device_, /*non_blocking=*/asynchronous());
}

c10::Event Stager::record() const {
  TORCH_INTERNAL_ASSERT(side_stream_.has_value(), "record() without a side stream");
  c10::Event ready(device_.type());
  ready.record(*side_stream_);
  return ready;
}

void Stager::hand_over(const c10::Event& ready, const std::vector<at::Tensor>& tensors) const {
  const c10::impl::VirtualGuardImpl impl(device_.type());
  const c10::Stream current = impl.getStream(device_);
  ready.block(current);
  for (const at::Tensor& t : tensors) {
    if (t.defined() && t.device() == device_ && t.has_storage()) {
      impl.recordDataPtrOnStream(t.storage().data_ptr(), current);
    }
  }
}

torch::data::Example<> collate(std::vector<torch::data::Example<>> samples, const Stager& stager) {
  std::vector<at::Tensor> data;
  std::vector<at::Tensor> targets;
  data.reserve(samples.size());
  targets.reserve(samples.size());
  for (auto& sample : samples) {
    data.push_back(std::move(sample.data));
    targets.push_back(std::move(sample.target));
  }
  return {stager.stack(data), stager.stack(targets)};
}

torch::data::TensorExample collate(std::vector<torch::data::TensorExample> samples,
                                   const Stager& stager) {
  std::vector<at::Tensor> data;
  data.reserve(samples.size());
  for (auto& sample : samples) data.push_back(std::move(sample.data));
  return torch::data::TensorExample(stager.stack(data));
}

}  // namespace devcheck::detail
