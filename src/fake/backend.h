#pragma once
// The fake backends' shared runtime. A fake backend is a device type whose
// tensors hold host memory and whose ops run LibTorch's CPU kernels over the
// same bytes. Two backends share this one implementation, told apart by
// FakeKind:
//   kAccelerator  devcheck's fake accelerator: PyTorch's PrivateUse1 key,
//                 devices "fake:N" (device.cc);
//   kCuda         fake CUDA: the CUDA device type and dispatch key, devices
//                 "cuda:N", for programs written for CUDA (cuda/cuda.cc).
// Kernels are templates over the kind (kernels.cc), so each backend's
// kernels know their device type at compile time.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/DispatchKey.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <torch/library.h>

#include "devcheck/fake_cuda.h"

namespace devcheck::detail {

// The most devices a fake backend can have (DEVCHECK_FAKE_DEVICES, fake_cuda(n)).
inline constexpr int kMaxFakeDevices = 8;

enum class FakeKind : std::uint8_t { kAccelerator = 0, kCuda = 1 };

// How many kinds there are, and the place of each in per-kind tables.
inline constexpr int kFakeKinds = 2;
constexpr std::size_t fake_slot(FakeKind kind) { return static_cast<std::size_t>(kind); }

constexpr c10::DeviceType device_type_of(FakeKind kind) {
  return kind == FakeKind::kCuda ? c10::DeviceType::CUDA : c10::DeviceType::PrivateUse1;
}

constexpr c10::DispatchKey dispatch_key_of(FakeKind kind) {
  return kind == FakeKind::kCuda ? c10::DispatchKey::CUDA : c10::DispatchKey::PrivateUse1;
}

// How many devices `kind` has; 0 before it is configured.
int fake_count(FakeKind kind) noexcept;

// Sets the device count of `kind` (1..kMaxFakeDevices), before it registers.
void set_fake_count(FakeKind kind, int count) noexcept;

// Leaves the device count of `kind` open until it is first asked for, then
// takes `count()`'s answer (0..kMaxFakeDevices) for the rest of the process:
// fake CUDA's count is the CUDA_VISIBLE_DEVICES the program has set by its
// first CUDA call, as the CUDA runtime reads it when it initialises.
void set_fake_count_on_first_use(FakeKind kind, int (*count)() noexcept) noexcept;

// What CUDA says where the process sees no device: torch's CUDA
// initialisation (c10::cuda::device_count_ensure_non_zero), from Python and
// from C++ alike.
inline constexpr const char* kNoCudaDevices = "No CUDA GPUs are available";

// The calling thread's current device of `kind` (its device guard's).
c10::DeviceIndex fake_current_index(FakeKind kind) noexcept;

// `index` itself when it names a device, else the calling thread's current one.
c10::DeviceIndex fake_index_or_current(FakeKind kind, c10::optional<c10::Device> device) noexcept;

// Throws the error a device of `kind` gives for an index it does not have
// (fake CUDA: CUDA's "invalid device ordinal"). `what` names the operation.
void fake_check_index(FakeKind kind, int index, const char* what);

// The device guard of `kind` (current device and stream per thread, streams,
// events); registered by register_fake_guard().
void register_fake_guard(FakeKind kind);

// The allocator of `kind`: host memory (c10's CPU allocation, 64-byte
// aligned), tagged with the calling thread's current device and counted in
// that device's memory statistics.
c10::Allocator* fake_allocator(FakeKind kind);

// A DataPtr that keeps `owner` (a CPU storage a kernel made) alive and shows
// its bytes on device `index` of `kind`, counted there as allocated.
c10::DataPtr fake_adopt(FakeKind kind, c10::DeviceIndex index, c10::Storage owner);

// Memory statistics of one device, as CUDA's caching allocator counts them
// for a program. Freed blocks of 16 KiB and more stay cached on their device
// for reuse (at most 512 MiB a device) until fake_empty_cache(); reserved is
// allocated plus cached. Bytes.
struct FakeMemoryStats {
  std::int64_t allocated_bytes = 0;        // held now
  std::int64_t peak_allocated_bytes = 0;   // most held at once since the last peak reset
  std::int64_t allocated_bytes_total = 0;  // handed out since the last accumulated reset
  std::int64_t freed_bytes_total = 0;      // given back since the last accumulated reset
  std::int64_t allocations = 0;            // blocks handed out since the last accumulated reset
  std::int64_t frees = 0;                  // blocks given back since the last accumulated reset
  std::int64_t blocks = 0;                 // blocks held now
  std::int64_t peak_blocks = 0;            // most blocks held at once since the last peak reset
  std::int64_t cached_bytes = 0;           // in freed blocks kept for reuse
  std::int64_t cached_blocks = 0;          // freed blocks kept for reuse
  std::int64_t reserved_bytes = 0;         // allocated + cached
  std::int64_t peak_reserved_bytes = 0;    // most reserved at once since the last peak reset
  std::int64_t segments = 0;               // blocks held + cached
  std::int64_t peak_segments = 0;          // most segments at once since the last peak reset
  std::int64_t host_allocations = 0;       // blocks taken from host memory (cache misses)
  std::int64_t host_frees = 0;             // blocks given back to host memory
  std::int64_t host_allocated_bytes = 0;   // bytes of the blocks taken from host memory
  std::int64_t host_freed_bytes = 0;       // bytes of the blocks given back to host memory
};
FakeMemoryStats fake_memory_stats(FakeKind kind, int index);
void fake_reset_peak_memory(FakeKind kind, int index);
void fake_reset_accumulated_memory(FakeKind kind, int index);
// Gives every cached block of every device of `kind` back to host memory
// (torch.cuda.empty_cache()).
void fake_empty_cache(FakeKind kind);

// While it lives, the CPU memory the calling thread's kernels allocate comes
// from the cache of device `index` of `kind` (a fake op's results and
// workspace); see install_fake_op_cpu_allocator().
class FakeOpScope {
 public:
  FakeOpScope(FakeKind kind, c10::DeviceIndex index) noexcept;
  ~FakeOpScope();
  FakeOpScope(const FakeOpScope&) = delete;
  FakeOpScope& operator=(const FakeOpScope&) = delete;

 private:
  FakeKind kind_;
  c10::DeviceIndex index_;
};

// Makes the process's CPU allocator one that serves a fake op's allocations
// (of 16 KiB and more) from its device's cache and hands every other
// allocation to the allocator it replaces. Once per process.
void install_fake_op_cpu_allocator();

// Host memory that counts as pinned: is_pinned() is true for tensors in it.
c10::Allocator* fake_pinned_allocator();
bool fake_is_pinned(const void* data) noexcept;

// The generator random ops on device `index` of `kind` draw from when the
// program passes none: fake CUDA has one CPU generator per device (seeded by
// torch.cuda.manual_seed and its C++ counterparts); the fake accelerator
// draws from the CPU's default generator.
const at::Generator& fake_generator(FakeKind kind, int index);

// The priority fake backends register their allocators with: above a CUDA
// build's own (c10::SetAllocator keeps the highest).
inline constexpr std::uint8_t kFakeAllocatorPriority = 100;

// Registers the allocator and every kernel of `kind`. Called once per kind.
void register_fake_kernels(FakeKind kind);

// Registers the kernels of `kind` that make memory (empty, empty_strided,
// the set_ overloads) in `aten`, a registration block for its dispatch key;
// factories.cc. Part of register_fake_kernels().
void register_fake_factories(FakeKind kind, torch::Library& aten);

// The boxed kernel every op of `kind` without a kernel of its own runs: the
// device check, then the CPU kernel over aliases (kernels.cc).
torch::CppFunction fake_fallback_function(FakeKind kind);

// A tensor of `kind` on device `index` that owns `cpu`'s storage (a result a
// CPU computation made), with its geometry.
at::Tensor fake_tensor_owning(FakeKind kind, const at::Tensor& cpu, c10::DeviceIndex index);

// A CPU tensor over the same bytes as `t` (a fake tensor); `t` itself when it
// is a CPU tensor or undefined. For kernels that compute with ATen ops.
at::Tensor fake_cpu_alias(const at::Tensor& t);

// Fake CUDA only: the kernels of CUDA-only ops the CPU lacks (fused RNN
// cells, GradScaler's, pinning); cuda/kernels.cc.
void register_fake_cuda_kernels();

// Fake CUDA only: torch's profiler's CUDA stubs (events on the host clock,
// every fake device visited), replacing the CPU build's, which fail every
// call, and a CUDA build's, which call the driver; cuda/profiler.cc.
void register_fake_cuda_profiler();

// Turns fake CUDA on as fake_cuda(options) does, and returns the machine's
// count, options.count(), leaving the devices the process sees to be decided
// at its first CUDA call (CUDA_VISIBLE_DEVICES): for starts that do not hand
// the devices to the program (devcheck run's preload library, Python's).
int turn_on_fake_cuda(const FakeCudaOptions& options);

// Records that this process made a CUDA call: a child forked from it from
// now on cannot use fake CUDA, as a GPU's CUDA context does not survive fork.
void fake_cuda_mark_used() noexcept;

// Whether this process was forked from one where fake CUDA was in use (a
// DataLoader worker started with fork): CUDA cannot be used there.
bool fake_cuda_in_bad_fork() noexcept;

// What a CUDA call in such a child fails with: the driver's "initialization
// error" (a CUDA context does not survive fork). From Python, torch's next
// CUDA initialisation raises "Cannot re-initialize CUDA in forked
// subprocess" first, as on a GPU.
std::string fake_cuda_bad_fork_message();

}  // namespace devcheck::detail
