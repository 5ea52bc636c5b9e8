// CUDA IPC under fake CUDA. A GPU shares a cuda tensor with another process
// through a cudaIpcMemHandle of its memory; fake CUDA's memory is host
// memory, so it is shared as torch shares a CPU tensor's: the storage's
// bytes move into a CPU storage of shared memory (made by Python with the
// sharing strategy in force, torch.multiprocessing's own), the fake storage
// shows that memory from then on, and the receiver maps the same pages and
// shows them as a fake cuda storage of its own. Writes on either side are
// the other's, as on a GPU. The pickling itself is Python's
// (python/devcheck_fake_cuda/_ipc.py).

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "detail/compat.h"
#include "fake/backend.h"

namespace devcheck::detail {
namespace {

constexpr FakeKind kCuda = FakeKind::kCuda;

// What a fake CUDA storage's DataPtr holds once its bytes are shared memory:
// the CPU storage that owns the mapping, the sharing strategy it was made
// for, and, in the process whose memory it was, the accounting of its bytes
// on the device (fake_adopt: memory_allocated() still counts them, as a
// GPU's caching allocator counts a block it shared; a receiver's mapping is
// not its allocation).
struct SharedHost {
  c10::Storage host;
  std::string strategy;
  c10::DataPtr counted;
};

void delete_shared_host(void* ctx) { delete static_cast<SharedHost*>(ctx); }

const SharedHost* shared_host_of(const c10::Storage& storage) {
  const c10::DataPtr& ptr = storage.data_ptr();
  if (ptr.get_deleter() != &delete_shared_host) return nullptr;
  return static_cast<const SharedHost*>(ptr.get_context());
}

void check_fake_cuda(const at::Tensor& t, const char* what) {
  TORCH_CHECK(t.defined() && t.device().is_cuda() && t.layout() == c10::kStrided, "[devcheck] ",
              what, ": expected a strided cuda tensor of fake CUDA, got ",
              t.defined() ? t.toString() : std::string("an undefined tensor"));
}

void check_host(const at::Tensor& host, const char* what) {
  TORCH_CHECK(host.device().is_cpu(), "[devcheck] ", what,
              ": expected a CPU tensor over shared memory, got one on ", host.device());
}

// A CPU byte tensor over the whole of `storage`.
at::Tensor bytes_over(const c10::Storage& storage) {
  return at::empty({0}, at::TensorOptions().dtype(at::kByte))
      .set_(storage, 0, {static_cast<int64_t>(storage.nbytes())}, {1});
}

c10::DataPtr showing(SharedHost* shared, c10::Device device) {
  void* data = DEVCHECK_STORAGE_MUTABLE_DATA(shared->host);
  return {data, shared, &delete_shared_host, device};
}

// The CPU byte tensor over the shared memory that `t`'s storage shows, or
// nothing when it shows memory of its own. A storage shared for one strategy
// is not shared again for another: torch would move the CPU storage's bytes
// to new memory, behind the fake storage's back.
c10::optional<at::Tensor> shared_host(const at::Tensor& t, const std::string& strategy) {
  check_fake_cuda(t, "fake_cuda_shared_host");
  const SharedHost* shared = shared_host_of(t.storage());
  if (shared == nullptr) return c10::nullopt;
  TORCH_CHECK(shared->strategy == strategy,
              "devcheck fake CUDA: this cuda tensor's memory was shared between processes with "
              "torch.multiprocessing's '",
              shared->strategy, "' sharing strategy; sharing it again with '", strategy,
              "' is not emulated (set the strategy once, before the first cuda tensor is sent)");
  return bytes_over(shared->host);
}

// Moves `t`'s storage into `host`'s (shared memory at least as large): the
// bytes are copied there and the fake storage shows that memory from now on,
// so every tensor on it keeps its identity.
void share_into(const at::Tensor& t, const at::Tensor& host, const std::string& strategy) {
  check_fake_cuda(t, "fake_cuda_share_into_");
  check_host(host, "fake_cuda_share_into_");
  c10::StorageImpl* storage = t.storage().unsafeGetStorageImpl();
  TORCH_CHECK(shared_host_of(t.storage()) == nullptr,
              "[devcheck] fake_cuda_share_into_: the storage is shared already");
  const std::size_t nbytes = storage->nbytes();
  TORCH_CHECK(host.storage().nbytes() >= nbytes,
              "[devcheck] fake_cuda_share_into_: ", host.storage().nbytes(),
              " bytes of shared memory for a storage of ", nbytes);
  const c10::Device device = storage->data_ptr().device();
  if (nbytes > 0) {
    std::memcpy(DEVCHECK_STORAGE_MUTABLE_DATA(host.storage()), storage->data_ptr().get(), nbytes);
  }
  auto* shared =
      new SharedHost{host.storage(), strategy, fake_adopt(kCuda, device.index(), host.storage())};
  storage->set_data_ptr_noswap(showing(shared, device));
}

// A cuda tensor on `device` over the shared memory of `host` (a storage a
// sender shared, mapped here), with the sender's geometry. Its storage
// cannot be resized, as a GPU's IPC storage cannot.
at::Tensor from_host(const at::Tensor& host, int64_t device, const std::string& strategy,
                     c10::ScalarType dtype, int64_t offset, c10::IntArrayRef size,
                     c10::IntArrayRef stride) {
  check_host(host, "fake_cuda_from_host");
  // Made first: a CUDA call where the process sees no such device, or in a
  // forked child of a process that used CUDA, fails as it does on a GPU.
  at::Tensor t = at::empty({0}, at::TensorOptions().dtype(dtype).device(
                                    c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device)));
  auto* shared = new SharedHost{host.storage(), strategy, c10::DataPtr()};
  const std::size_t nbytes = host.storage().nbytes();
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), nbytes, showing(shared, t.device()),
      fake_allocator(kCuda), /*resizable=*/false));
  return t.set_(storage, offset, size, stride);
}

TORCH_LIBRARY_FRAGMENT(devcheck, m) {
  m.def("fake_cuda_shared_host(Tensor t, str strategy) -> Tensor?", &shared_host);
  m.def("fake_cuda_share_into_(Tensor t, Tensor host, str strategy) -> ()", &share_into);
  m.def(
      "fake_cuda_from_host(Tensor host, int device, str strategy, ScalarType dtype, int offset, "
      "int[] size, int[] stride) -> Tensor",
      &from_host);
}

}  // namespace
}  // namespace devcheck::detail
