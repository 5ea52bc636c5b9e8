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

// ---- the fake device's backend (used by src/fake/) --------------------------
// c10::Allocator::allocate is const in 1.13 .. 2.2 and not from 2.3 on.
#if DEVCHECK_TORCH_AT_LEAST(2, 3)
#define DEVCHECK_ALLOCATE_CONST
#else
#define DEVCHECK_ALLOCATE_CONST const
#endif

// Device-guard members that LibTorch 2.x added with defaults that throw. The
// fake devices' work has finished when an op returns, so their events are
// complete once recorded; elapsedTime (2.2+) is the time between two
// records (the guard's static elapsed_ms).
#if DEVCHECK_TORCH_AT_LEAST(2, 2)
#define DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES                                           \
  void synchronizeEvent(void* /*event*/) const override {}                            \
  void synchronizeDevice(const c10::DeviceIndex /*device_index*/) const override {}   \
  double elapsedTime(void* start, void* end, const c10::DeviceIndex /*device_index*/) \
      const override {                                                                \
    return elapsed_ms(start, end);                                                    \
  }
#elif DEVCHECK_TORCH_AT_LEAST(2, 1)
#define DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES                \
  void synchronizeEvent(void* /*event*/) const override {} \
  void synchronizeDevice(const c10::DeviceIndex /*device_index*/) const override {}
#else
#define DEVCHECK_FAKE_GUARD_EXTRA_OVERRIDES
#endif

// What C10_CUDA_CHECK appends to a CUDA error ("CUDA error: invalid device
// ordinal" and the like): c10/cuda/CUDAException.h in 1.13,
// c10_cuda_check_implementation in c10/cuda/CUDAException.cpp from 2.0 on.
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
#define DEVCHECK_CUDA_CHECK_SUFFIX                                                        \
  "\nCUDA kernel errors might be asynchronously reported at some other API call, so the " \
  "stacktrace below might be incorrect.\nFor debugging consider passing "                 \
  "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "      \
  "assertions.\n"
#else
#define DEVCHECK_CUDA_CHECK_SUFFIX                                                       \
  "\nCUDA kernel errors might be asynchronously reported at some other API call,so the " \
  "stacktrace below might be incorrect.\nFor debugging consider passing "                \
  "CUDA_LAUNCH_BLOCKING=1."
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

// ---- fake CUDA's CUDA hooks (used by src/fake/cuda/cuda.cc) -----------------
// ATen asks at::detail::getCUDAHooks() what a CUDA build has: whether there
// is cuDNN (composite ops then pick cudnn_* kernels), the pinned-memory
// allocator, the default generators, the device count. Fake CUDA answers as
// a CUDA build without cuDNN or MAGMA, from its own state (S: static
// functions count(), current(), set_current(i), generator(i), allocator(),
// pinned_allocator(), is_pinned(p), init(), cudart_version()). The method set
// differs: 1.13 has initCUDA(), getDefaultCUDAGenerator() and int64_t device
// indices; 2.x derives from AcceleratorHooksInterface (init(),
// getDefaultGenerator(), deviceCount(), the current device).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/CUDAHooksInterface.h>
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
#include <ATen/Context.h>
#endif

namespace devcheck::detail {

// The accelerator API (at::accelerator, torch.accelerator; 2.6 on) takes a
// build's accelerator to be the one whose hooks say isBuilt(); the autograd
// engine of 2.10 on asks it on every backward that has a device input. Fake
// CUDA answers as a CUDA build: built, available while it has devices. Where
// the interface has no such members (1.13 .. 2.5), nothing is added.
template <typename S, typename Base, typename = void>
struct FakeAcceleratorAnswers : Base {};
template <typename S, typename Base>
struct FakeAcceleratorAnswers<S, Base, std::void_t<decltype(&Base::isBuilt)>> : Base {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return S::count() > 0; }
};

template <typename S>
struct FakeCudaHooks final : FakeAcceleratorAnswers<S, at::CUDAHooksInterface> {
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  void init() const override { S::init(); }
  const at::Generator& getDefaultGenerator(c10::DeviceIndex index) const override {
    return S::generator(index);
  }
  bool isPinnedPtr(const void* data) const override { return S::is_pinned(data); }
  bool hasPrimaryContext(c10::DeviceIndex /*device_index*/) const override { return true; }
  c10::DeviceIndex current_device() const override { return S::current(); }
  c10::DeviceIndex deviceCount() const override { return S::count(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { S::set_current(device); }
  c10::DeviceIndex getCurrentDevice() const override { return S::current(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    const c10::DeviceIndex old = S::current();
    if (device >= 0 && device != old) S::set_current(device);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override {
    return exchangeDevice(device);
  }
  at::Generator getNewGenerator(c10::DeviceIndex /*device_index*/) const override {
    return at::detail::createCPUGenerator();
  }
  void deviceSynchronize(c10::DeviceIndex /*device_index*/) const override {}
#else
  void initCUDA() const override { S::init(); }
  const at::Generator& getDefaultCUDAGenerator(c10::DeviceIndex index) const override {
    return S::generator(index);
  }
  bool isPinnedPtr(void* data) const override { return S::is_pinned(data); }
  bool hasPrimaryContext(int64_t /*device_index*/) const override { return true; }
  int64_t current_device() const override { return S::current(); }
  void deviceSynchronize(int64_t /*device_index*/) const override {}
#endif
  at::Device getDeviceFromPtr(void* /*data*/) const override {
    return {c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(S::current())};
  }
  bool hasCUDA() const override { return true; }
  bool hasCUDART() const override { return true; }
  at::Allocator* getPinnedMemoryAllocator() const override { return S::pinned_allocator(); }
  at::Allocator* getCUDADeviceAllocator() const override { return S::allocator(); }
  long versionCUDART() const override { return S::cudart_version(); }  // NOLINT(google-runtime-int)
  long versionCuDNN() const override { return 0; }                     // NOLINT(google-runtime-int)
  std::string showConfig() const override {
    return "  - devcheck fake CUDA: host memory, CPU kernels (no GPU, no cuDNN)\n";
  }
  int getNumGPUs() const override { return S::count(); }
};

// The CUDA version a CUDA build of this LibTorch reports (versionCUDART(),
// torch.version.cuda): Debian 13's 2.6 is built with CUDA 12.4; 1.13's CPU
// build reports what 1.13's default wheel was built with, 11.7.
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
inline constexpr long kFakeCudartVersion = 12040;  // NOLINT(google-runtime-int)
#else
inline constexpr long kFakeCudartVersion = 11070;  // NOLINT(google-runtime-int)
#endif

// Drops the warnings LibTorch issues while it lives on this thread (the
// warning handler is per thread). 1.13: c10::Warning::WarningHandlerGuard
// and process(location, message, verbatim); 2.x: c10::WarningUtils and
// process(const c10::Warning&).
class QuietWarnings {
 public:
  QuietWarnings() = default;
  QuietWarnings(const QuietWarnings&) = delete;
  QuietWarnings& operator=(const QuietWarnings&) = delete;

 private:
  struct Drop final : c10::WarningHandler {
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
    void process(const c10::Warning& /*warning*/) override {}
#else
    void process(const c10::SourceLocation& /*location*/, const std::string& /*message*/,
                 const bool /*verbatim*/) override {}
#endif
  };
  Drop drop_;
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  c10::WarningUtils::WarningHandlerGuard guard_{&drop_};
#else
  c10::Warning::WarningHandlerGuard guard_{&drop_};
#endif
};

// What torch's own fork handler calls in a child (libtorch_python's
// torch::utils::set_requires_cuda_init(true) in 1.13,
// set_requires_device_init(kCUDA, true) in 2.x): the next CUDA use from
// Python goes through torch.cuda._lazy_init again. `fn` is the symbol's address.
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
inline constexpr char kPythonCudaInitSymbol[] =
    "_ZN5torch5utils24set_requires_device_initEN3c1010DeviceTypeEb";
inline void require_python_cuda_init(void* fn) {
  reinterpret_cast<void (*)(c10::DeviceType, bool)>(fn)(c10::DeviceType::CUDA, true);
}
#else
inline constexpr char kPythonCudaInitSymbol[] = "_ZN5torch5utils22set_requires_cuda_initEb";
inline void require_python_cuda_init(void* fn) { reinterpret_cast<void (*)(bool)>(fn)(true); }
#endif

// CUDA-only fused kernels of scaled_dot_product_attention (2.0+) choose
// themselves by asking the GPU's properties; fake CUDA turns them off, so
// attention takes its math path, the one the CPU has.
inline void disable_fused_attention() {
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  at::globalContext().setSDPUseFlash(false);
  at::globalContext().setSDPUseMemEfficient(false);
#endif
#if DEVCHECK_TORCH_AT_LEAST(2, 3)
  at::globalContext().setSDPUseCuDNN(false);
#endif
}

}  // namespace devcheck::detail

// ---- float16 matrices under fake CUDA (used by src/fake/half.cc) -------------
// LibTorch 1.13's mm and addmm check that their matrices share a dtype in
// CUDA's kernel only ("expected mat1 and mat2 to have the same dtype, but
// got: c10::Half != float"), which fake CUDA never runs, and the CPU's
// kernel fails on Half first; from 2.0 on their Meta functions check, on
// the CPU as on a GPU. 1.13's bmm and baddbmm check nothing either: CUDA's
// kernel reads both batches as one dtype ("expected scalar type Float but
// found Half"), while the CPU's fails on Half or computes in float32; from
// 2.0 on the CPU's kernel refuses the mix as a GPU's does.
#define DEVCHECK_MATMUL_DTYPES_CHECKED_IN_CUDA_KERNEL (!DEVCHECK_TORCH_AT_LEAST(2, 0))

// LibTorch 1.13's CPU _convolution sends a transposed bfloat16 convolution
// to oneDNN's forward convolution, which fails with a channel-count error
// ("weight of size [2, 3, 3, 3], expected input[1, 2, 5, 5] to have 3
// channels"; its backward: "could not create a descriptor for a dilated
// convolution forward propagation primitive") where a GPU computes it
// (src/fake/half.cc runs it in float32).
// 2.6 and 2.14 compute it; the torches between were not checked.
#define DEVCHECK_CPU_BF16_TRANSPOSED_CONV_MISROUTED (!DEVCHECK_TORCH_AT_LEAST(2, 0))

// ---- aten::rms_norm (used by bench/rms_norm_bench.cc) -----------------------
// LibTorch 2.4 added at::rms_norm (composed of ATen ops, as
// torch.nn.functional.rms_norm); 1.13 has none.
#define DEVCHECK_HAS_ATEN_RMS_NORM DEVCHECK_TORCH_AT_LEAST(2, 4)

// ---- c10d process groups (used by src/distributed/) --------------------------
// 1.13: a backend (ProcessGroupGloo, ProcessGroupNCCL) is itself a
// c10d::ProcessGroup. 2.x: backends derive from c10d::Backend, and a
// c10d::ProcessGroup over the store dispatches each collective to the
// backend registered for the tensors' device type. Templates, so this header
// needs no c10d include; checked against 1.13, 2.6 and 2.14. (Debian's 1.13
// package lacks a header reducer.hpp includes: src/distributed/torch_1_13/.)
#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

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

// c10d::Reducer's constructor. 1.13 .. 2.9: (params, bucket_indices,
// per_bucket_size_limits, process_group, expect_sparse_gradients,
// bucket_bytes_cap, find_unused_parameters, gradient_as_bucket_view,
// param_names, first_bucket_bytes_cap); the per-bucket limits only labelled
// the first buckets. 2.10 on: the limits go, process_group comes third, and
// skip_all_reduce_unused_params, use_python_reducer and bucket_bytes_cap_list
// (int64 caps for rebuilt buckets; empty: first_bucket_bytes_cap, then
// bucket_bytes_cap, as before) follow. Told apart by which call compiles.
template <typename ReducerT, typename Tensor, typename GroupPtr>
std::unique_ptr<ReducerT> make_reducer(std::vector<Tensor> params,
                                       std::vector<std::vector<size_t>> bucket_indices,
                                       std::vector<size_t> per_bucket_size_limits,
                                       GroupPtr process_group, std::vector<bool> sparse,
                                       int64_t bucket_bytes_cap, bool gradient_as_bucket_view,
                                       std::unordered_map<size_t, std::string> param_names,
                                       int64_t first_bucket_bytes_cap) {
  constexpr bool kWithoutLimits =
      std::is_constructible_v<ReducerT, std::vector<Tensor>, std::vector<std::vector<size_t>>,
                              GroupPtr, std::vector<bool>, int64_t, bool, bool,
                              std::unordered_map<size_t, std::string>, int64_t, bool, bool,
                              std::vector<int64_t>>;
  if constexpr (kWithoutLimits) {
    (void)per_bucket_size_limits;
    return std::make_unique<ReducerT>(
        std::move(params), std::move(bucket_indices), std::move(process_group), std::move(sparse),
        bucket_bytes_cap, /*find_unused_parameters=*/false, gradient_as_bucket_view,
        std::move(param_names), first_bucket_bytes_cap,
        /*skip_all_reduce_unused_params=*/false, /*use_python_reducer=*/false,
        /*bucket_bytes_cap_list=*/std::vector<int64_t>{});
  } else {
    return std::make_unique<ReducerT>(std::move(params), std::move(bucket_indices),
                                      std::move(per_bucket_size_limits), std::move(process_group),
                                      std::move(sparse), bucket_bytes_cap,
                                      /*find_unused_parameters=*/false, gradient_as_bucket_view,
                                      std::move(param_names), first_bucket_bytes_cap);
  }
}

}  // namespace devcheck::detail

// ---- ops only some torches have (used by src/fake/cuda/kernels.cc) ---------
// aten::_fused_rms_norm_backward, nn.functional.rms_norm's fused backward
// with CUDA and MPS kernels only: not in 1.13 or 2.6, in 2.14. Looked up by
// name (the dispatcher's schema) when fake CUDA registers its kernels, so
// one source serves each torch.
namespace devcheck::detail {
inline constexpr const char* kFusedRmsNormBackward = "aten::_fused_rms_norm_backward";
}  // namespace devcheck::detail

// ---- the profiler's CUDA stubs (used by src/fake/cuda/profiler.cc) ----------
// torch::profiler::impl::ProfilerStubs and registerCUDAMethods(): 1.13
// declares them in torch/csrc/profiler/api.h (record() takes an int device
// and a std::shared_ptr<CUevent_st> event), 2.x in
// torch/csrc/profiler/stubs/base.h (a c10::DeviceIndex, a
// std::shared_ptr<void>). profiler.cc reads the two types off record()'s
// declaration, so only the header's name differs.
// NOLINTBEGIN(bugprone-macro-parentheses): a header's name, for #include.
#if __has_include(<torch/csrc/profiler/stubs/base.h>)
#define DEVCHECK_PROFILER_STUBS_HEADER <torch/csrc/profiler/stubs/base.h>
#else
#define DEVCHECK_PROFILER_STUBS_HEADER <torch/csrc/profiler/api.h>
#endif
// NOLINTEND(bugprone-macro-parentheses)
