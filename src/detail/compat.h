#pragma once
// The one place where LibTorch 1.13 and 2.x differ for devcheck. Everything
// else compiles unchanged against both; keep each shim small and say which
// versions it spans.

#include <torch/version.h>

// True when the LibTorch being compiled against is at least MAJOR.MINOR.
#define DEVCHECK_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||           \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// ---- autocast (used by src/train/amp.cc) -----------------------------------
// 1.13 .. 2.3 have one function per device type (is_enabled() for CUDA,
// is_cpu_enabled(), get_autocast_gpu_dtype(), ...); 2.4 replaced them with
// functions taking a DeviceType and deprecated the old ones. Declared here
// rather than including <ATen/autocast_mode.h>, which pulls in all of ATen.
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <c10/macros/Export.h>
#include <c10/util/Exception.h>
#include <sstream>
#include <string>
#include <type_traits>

namespace at {
namespace autocast {
#if DEVCHECK_TORCH_AT_LEAST(2, 4)
TORCH_API bool is_autocast_enabled(c10::DeviceType device_type);
TORCH_API void set_autocast_enabled(c10::DeviceType device_type, bool enabled);
TORCH_API c10::ScalarType get_autocast_dtype(c10::DeviceType device_type);
TORCH_API void set_autocast_dtype(c10::DeviceType device_type, c10::ScalarType dtype);
#else
TORCH_API bool is_enabled();
TORCH_API void set_enabled(bool enabled);
TORCH_API bool is_cpu_enabled();
TORCH_API void set_cpu_enabled(bool enabled);
TORCH_API c10::ScalarType get_autocast_gpu_dtype();
TORCH_API c10::ScalarType get_autocast_cpu_dtype();
TORCH_API void set_autocast_gpu_dtype(c10::ScalarType dtype);
TORCH_API void set_autocast_cpu_dtype(c10::ScalarType dtype);
#endif
TORCH_API void clear_cache();
TORCH_API int increment_nesting();
TORCH_API int decrement_nesting();
}  // namespace autocast
}  // namespace at

namespace devcheck::detail {

// Whether autocast is on for `type` on this thread (CPU and CUDA only).
inline bool autocast_enabled(c10::DeviceType type) {
#if DEVCHECK_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(type);
#else
  TORCH_CHECK(type == c10::kCPU || type == c10::kCUDA, "autocast: unsupported device type ", type);
  return type == c10::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

inline void set_autocast_enabled(c10::DeviceType type, bool enabled) {
#if DEVCHECK_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(type, enabled);
#else
  TORCH_CHECK(type == c10::kCPU || type == c10::kCUDA, "autocast: unsupported device type ", type);
  if (type == c10::kCPU) {
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_enabled(enabled);
  }
#endif
}

inline c10::ScalarType autocast_dtype(c10::DeviceType type) {
#if DEVCHECK_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(type);
#else
  TORCH_CHECK(type == c10::kCPU || type == c10::kCUDA, "autocast: unsupported device type ", type);
  return type == c10::kCPU ? at::autocast::get_autocast_cpu_dtype()
                           : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void set_autocast_dtype(c10::DeviceType type, c10::ScalarType dtype) {
#if DEVCHECK_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(type, dtype);
#else
  TORCH_CHECK(type == c10::kCPU || type == c10::kCUDA, "autocast: unsupported device type ", type);
  if (type == c10::kCPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

// ---- optimizer state keys (used by src/train/) ------------------------------
// Optimizer::state() files a parameter's state under its TensorImpl: 1.13 keys
// the map by the address printed as a string, 2.x by the address itself.
// `StateMap` is the type of optimizer.state().
template <typename StateMap>
typename StateMap::key_type optimizer_state_key(const void* tensor_impl) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;  // as c10::guts::to_string(TensorImpl*) printed it
    key << tensor_impl;
    return key.str();
  } else {
    return const_cast<Key>(tensor_impl);
  }
}

}  // namespace devcheck::detail

// Writable pointer to a c10::Storage's bytes: data() in 1.13 and 2.0,
// mutable_data() from 2.1 (data() became const there).
#if DEVCHECK_TORCH_AT_LEAST(2, 1)
#define DEVCHECK_STORAGE_MUTABLE_DATA(storage) ((storage).mutable_data())
#else
#define DEVCHECK_STORAGE_MUTABLE_DATA(storage) ((storage).data())
#endif

// ---- the fake device's backend (used by src/testing/) -----------------------
// c10::Allocator::allocate is const in 1.13 .. 2.2 and not from 2.3 on.
#if DEVCHECK_TORCH_AT_LEAST(2, 3)
#define DEVCHECK_ALLOCATE_CONST
#else
#define DEVCHECK_ALLOCATE_CONST const
#endif

// Device-guard members that LibTorch 2.x added with defaults that throw. The
// fake device's work has finished when an op returns, so its events are
// complete once recorded.
#if DEVCHECK_TORCH_AT_LEAST(2, 1)
#define DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES                \
  void synchronizeEvent(void* /*event*/) const override {} \
  void synchronizeDevice(const c10::DeviceIndex /*device_index*/) const override {}
#else
#define DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES
#endif

#include <c10/core/DeviceType.h>
#if DEVCHECK_TORCH_AT_LEAST(2, 6)
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/StorageImpl.h>

#include <algorithm>
#include <cstring>
#endif

namespace devcheck::detail {

#if DEVCHECK_TORCH_AT_LEAST(2, 6)
// LibTorch 2.x asks a PrivateUse1 backend for its hooks (lazy init by the
// autograd engine, generators, is_pinned, storage resizes from Python).
// The fake device's generator is the CPU's: random ops run the CPU kernels,
// so a seeded program draws the same numbers on both.
struct FakeAcceleratorHooks final : at::PrivateUse1HooksInterface {
  const at::Generator& getDefaultGenerator(c10::DeviceIndex /*device_index*/) const override {
    return at::detail::getDefaultCPUGenerator();
  }
  at::Device getDeviceFromPtr(void* /*data*/) const override {
    return {c10::DeviceType::PrivateUse1, 0};
  }
  bool hasPrimaryContext(c10::DeviceIndex /*device_index*/) const override { return true; }
  // Host memory is all the fake device has: "pinned" buffers are plain ones.
  at::Allocator* getPinnedMemoryAllocator() const override { return c10::GetCPUAllocator(); }
  void init() const override {}
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    c10::StorageImpl* impl = storage.unsafeGetStorageImpl();
    at::DataPtr fresh = impl->allocator()->allocate(newsize);
    const size_t keep = std::min(newsize, impl->nbytes());
    if (keep != 0) std::memcpy(fresh.get(), impl->data(), keep);
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(newsize);
  }
};
#endif

// What LibTorch 2.x lets a PrivateUse1 backend register besides its kernels:
// a name (LibTorch and Python then print and parse its devices as "fake:N";
// 1.13 keeps "privateuseone") and its hooks. Nothing to do in 1.13.
inline void register_fake_backend_extras() {
#if DEVCHECK_TORCH_AT_LEAST(2, 1)
  if (!c10::is_privateuse1_backend_registered()) c10::register_privateuse1_backend("fake");
#endif
#if DEVCHECK_TORCH_AT_LEAST(2, 6)
  if (!at::isPrivateUse1HooksRegistered()) {
    at::RegisterPrivateUse1HooksInterface(new FakeAcceleratorHooks());
  }
#endif
}

}  // namespace devcheck::detail

// ---- aten::rms_norm (used by bench/rms_norm_bench.cc) -----------------------
// LibTorch 2.4 added at::rms_norm (composed of ATen ops, as
// torch.nn.functional.rms_norm); 1.13 has none.
#define DEVCHECK_HAS_ATEN_RMS_NORM DEVCHECK_TORCH_AT_LEAST(2, 4)

// ---- c10d process groups (used by src/distributed/) --------------------------
// 1.13: a backend (ProcessGroupGloo, ProcessGroupNCCL) is itself a
// c10d::ProcessGroup. 2.x: backends derive from c10d::Backend, and a
// c10d::ProcessGroup over the store dispatches each collective to the
// backend registered for the tensors' device type. Templates, so this header
// needs no c10d include; checked against 1.13 and 2.6. (Reducer's
// constructor takes per_bucket_size_limits by value in 1.13 and by const
// reference in 2.6: one call compiles against both. Debian's 1.13 package
// lacks a header reducer.hpp includes: src/distributed/torch_1_13/.)
#include <c10/util/intrusive_ptr.h>

namespace devcheck::detail {

enum class C10dBackend { kGloo, kNccl };

// The c10d::ProcessGroup (ProcessGroupT) that runs `backend`'s collectives
// for tensors of `device_type`.
template <typename ProcessGroupT, typename BackendT, typename StoreT>
c10::intrusive_ptr<ProcessGroupT> process_group_over(const c10::intrusive_ptr<BackendT>& backend,
                                                     const c10::intrusive_ptr<StoreT>& store,
                                                     int rank, int size,
                                                     c10::DeviceType device_type,
                                                     C10dBackend kind) {
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  auto group = c10::make_intrusive<ProcessGroupT>(store, rank, size);
  const auto type = kind == C10dBackend::kNccl ? ProcessGroupT::BackendType::NCCL
                                               : ProcessGroupT::BackendType::GLOO;
  group->setBackend(device_type, type, backend);
  group->setDefaultBackend(type);
  return group;
#else
  (void)store, (void)rank, (void)size, (void)device_type, (void)kind;
  return backend;
#endif
}

// TCPStore: 2.4+ asks for its libuv backend by default
// (TCPStoreOptions::useLibUV), and a LibTorch built without libuv (Debian
// 13's 2.6) then throws "use_libuv was requested but PyTorch was build
// without libuv support". The classic backend is in every build, 1.13's
// only one (no such option there).
template <typename Options>
auto use_classic_tcp_store(Options& options, int /*has_option*/)
    -> decltype(options.useLibUV = false, void()) {
  options.useLibUV = false;
}
template <typename Options>
void use_classic_tcp_store(Options& /*options*/, long /*no_option*/) {}

}  // namespace devcheck::detail
