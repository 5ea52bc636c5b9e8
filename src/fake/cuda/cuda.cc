// Fake CUDA: the fake backend with the CUDA device type and dispatch key.
// Turning it on registers its device guard, allocator and kernels for CUDA,
// takes over every CUDA kernel LibTorch has (a CUDA build's call the driver),
// answers ATen's CUDA hooks, and marks a forked child of a process that used
// CUDA, which cannot use it. The torch.ops.devcheck.fake_cuda_* ops give
// Python's torch.cuda what it asks torch._C for (python/devcheck_fake_cuda/).

#include "devcheck/fake_cuda.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>
#include <c10/util/Type.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>
#include <pthread.h>
#include <torch/library.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <typeinfo>
#include <unordered_set>
#include <vector>

#include "detail/compat.h"
#include "detail/fake_hooks.h"
#include "devcheck/error.h"
#include "fake/backend.h"
#include "fake/checks.h"
#include "fake/cuda/visible.h"
#include "format/cuda_probe.h"

namespace devcheck {
namespace detail {
namespace {

constexpr FakeKind kCuda = FakeKind::kCuda;

// A CUDA call was made in this process (what a fork then poisons), and this
// process is a forked child of one where a CUDA call was made.
std::atomic<bool> cuda_used{false};
std::atomic<bool> in_bad_fork{false};

// torch's own reset for a forked child (libtorch_python; null in a program
// without Python): the next CUDA use from Python goes through
// torch.cuda._lazy_init again, which raises "Cannot re-initialize CUDA in
// forked subprocess". Looked up in the parent: a child may not take the
// dynamic linker's lock.
void* python_cuda_init_reset = nullptr;

// A symbol of libtorch_python, which Python loads without RTLD_GLOBAL: asked
// of that library itself when it is in the process; null otherwise.
int find_torch_python(struct dl_phdr_info* info, size_t /*size*/, void* found) {
  if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libtorch_python") != nullptr) {
    *static_cast<std::string*>(found) = info->dlpi_name;
    return 1;
  }
  return 0;
}

void* python_symbol(const char* name) {
  std::string path;
  dl_iterate_phdr(find_torch_python, &path);
  if (path.empty()) return nullptr;
  void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  return library != nullptr ? dlsym(library, name) : nullptr;
}

void forked_child() {
  if (!cuda_used.load()) return;
  in_bad_fork.store(true);
  if (python_cuda_init_reset != nullptr) require_python_cuda_init(python_cuda_init_reset);
}

// What FakeCudaHooks asks (detail/compat.h).
struct CudaState {
  static int count() { return fake_count(kCuda); }
  static c10::DeviceIndex current() { return fake_current_index(kCuda); }
  static void set_current(c10::DeviceIndex index) {
    c10::impl::VirtualGuardImpl(c10::DeviceType::CUDA).setDevice({c10::DeviceType::CUDA, index});
  }
  static const at::Generator& generator(c10::DeviceIndex index) {
    return fake_generator(kCuda, index < 0 ? current() : index);
  }
  static c10::Allocator* allocator() { return fake_allocator(kCuda); }
  static c10::Allocator* pinned_allocator() { return fake_pinned_allocator(); }
  static bool is_pinned(const void* data) { return fake_is_pinned(data); }
  static void init() {
    TORCH_CHECK(!in_bad_fork.load(), fake_cuda_bad_fork_message());
    TORCH_CHECK(count() > 0, kNoCudaDevices);
    cuda_used.store(true);
  }
  static long cudart_version() { return kFakeCudartVersion; }  // NOLINT(google-runtime-int)
};

// ATen made its CUDA hooks object once, at the first getCUDAHooks() (a CUDA
// build of LibTorch 2.x already while Python imports torch), and offers no
// way to replace it. Neither that object (at::cuda::detail::CUDAHooks) nor
// the CPU build's default (at::CUDAHooksInterface) has data members, so fake
// CUDA gives it FakeCudaHooks' virtual table in place: every later call
// through getCUDAHooks() reaches fake CUDA's answers.
void take_over_cuda_hooks() {
  using Hooks = FakeCudaHooks<CudaState>;
  static_assert(sizeof(Hooks) == sizeof(at::CUDAHooksInterface),
                "fake CUDA's hooks add no data to the interface");
  const at::CUDAHooksInterface& hooks = at::detail::getCUDAHooks();
  if (dynamic_cast<const Hooks*>(&hooks) != nullptr) return;
  const std::string type = c10::demangle(typeid(hooks).name());
  TORCH_CHECK(type == "at::CUDAHooksInterface" || type == "at::cuda::detail::CUDAHooks",
              "[devcheck] fake_cuda: LibTorch's CUDA hooks are a ", type,
              ", which fake CUDA does not know how to take over");
  const Hooks ours;
  void* target = const_cast<void*>(static_cast<const void*>(&hooks));
  std::memcpy(target, static_cast<const void*>(&ours), sizeof(void*));
}

std::mutex overrides_mutex;
std::unordered_set<std::string>& overridden() {
  static auto* names = new std::unordered_set<std::string>();
  return *names;
}

std::string full_name(const c10::OperatorName& name) {
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

// Whether fake CUDA registers its kernel for `op` on the CUDA key: every op
// with a CUDA kernel here (a CUDA build's own, or one a library registered,
// later too: they would call the driver), and every op a CUDA build of this
// LibTorch version has a CUDA kernel for (fake_cuda_checks_*.inc: a CPU build
// has none). Any other op fails on a cuda tensor as on a GPU, with the
// dispatcher's "Could not run '...' with arguments from the 'CUDA' backend";
// composite ops run their composite kernels, as on a GPU.
bool fake_cuda_takes(const c10::OperatorHandle& op, const std::string& full_name) {
  return op.hasKernelForDispatchKey(c10::DispatchKey::CUDA) ||
         cuda_check_rule(full_name) != nullptr;
}

// The ops fake_cuda_takes() that are not fake CUDA's yet. `take` registers
// fake CUDA's fallback over them; otherwise they are only recorded as fake
// CUDA's.
int claim_cuda_kernels(bool take) {
  int claimed = 0;
  std::map<std::string, torch::Library*> libraries;  // one registration block per namespace
  for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
    std::string full = full_name(name);
    if (overridden().count(full) != 0) continue;
    const c10::optional<c10::OperatorHandle> op = c10::Dispatcher::singleton().findOp(name);
    if (!op || !fake_cuda_takes(*op, full)) continue;
    if (take) {
      const size_t colons = full.find("::");
      const std::string ns = full.substr(0, colons);
      torch::Library*& library = libraries[ns];
      if (library == nullptr) {
        library = new torch::Library(torch::Library::IMPL, ns, c10::DispatchKey::CUDA, __FILE__,
                                     static_cast<std::uint32_t>(__LINE__));
      }
      library->impl(full.substr(colons + 2).c_str(), fake_fallback_function(kCuda));
    }
    overridden().insert(std::move(full));
    ++claimed;
  }
  return claimed;
}

// Set when an op is defined after fake CUDA took the CUDA kernels over (a
// library loaded later), so that a refresh has something to look at.
std::atomic<bool> ops_added{false};

struct OpsAdded final : c10::OpRegistrationListener {
  void onOperatorRegistered(const c10::OperatorHandle& /*op*/) override { ops_added.store(true); }
  void onOperatorDeregistered(const c10::OperatorHandle& /*op*/) override {}
};

// CUDA tensors of other layouts (sparse, quantized, nested) have dispatch keys
// of their own; fake CUDA holds dense tensors only, and says so.
constexpr c10::DispatchKey kOtherCudaKeys[] = {
    c10::DispatchKey::SparseCUDA, c10::DispatchKey::SparseCsrCUDA, c10::DispatchKey::QuantizedCUDA,
    c10::DispatchKey::NestedTensorCUDA};

void not_emulated(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* /*stack*/) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "devcheck fake CUDA: ", op.schema().operator_name(),
                              " was called for ", keys.highestPriorityTypeId(),
                              ", which fake CUDA does not emulate: it holds dense (strided) CUDA "
                              "tensors only");
}

// Takes over the other layouts' CUDA kernels (a CUDA build's call the
// driver) and gives every op there fake CUDA's "not emulated" message.
void refuse_other_cuda_layouts() {
  for (const c10::DispatchKey key : kOtherCudaKeys) {
    try {
      (new torch::Library(torch::Library::IMPL, "_", key, __FILE__,
                          static_cast<std::uint32_t>(__LINE__)))
          ->fallback(torch::CppFunction::makeFromBoxedFunction<&not_emulated>());
    } catch (const c10::Error&) {
      // LibTorch has a fallback there already; the kernels below still go.
    }
    std::map<std::string, torch::Library*> libraries;
    for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
      const c10::optional<c10::OperatorHandle> op = c10::Dispatcher::singleton().findOp(name);
      if (!op || !op->hasKernelForDispatchKey(key)) continue;
      const std::string full = full_name(name);
      const size_t colons = full.find("::");
      const std::string ns = full.substr(0, colons);
      torch::Library*& library = libraries[ns];
      if (library == nullptr) {
        library = new torch::Library(torch::Library::IMPL, ns, key, __FILE__,
                                     static_cast<std::uint32_t>(__LINE__));
      }
      library->impl(full.substr(colons + 2).c_str(),
                    torch::CppFunction::makeFromBoxedFunction<&not_emulated>());
    }
  }
}

std::mutex setup_mutex;
// The machine's fake CUDA devices (fake_cuda(n), DEVCHECK_FAKE_CUDA); 0 while
// fake CUDA is off.
std::atomic<int> active_count{0};

// The machine indices of the devices this process sees, cuda:0 first, once
// the count is first asked for (fake_count(kCuda)).
std::array<int, kMaxFakeDevices> visible{};

// CUDA_VISIBLE_DEVICES as the program has set it by its first CUDA call,
// which is when the CUDA runtime reads it.
int visible_count() noexcept {
  const std::vector<int> seen =
      cuda_visible_devices(std::getenv(kCudaVisibleDevices), active_count.load());
  std::copy(seen.begin(), seen.end(), visible.begin());
  return static_cast<int>(seen.size());
}

void turn_on(int count) {
  active_count.store(count);
  set_fake_count_on_first_use(kCuda, &visible_count);
  register_fake_guard(kCuda);
  {
    // LibTorch 2.x warns once when a kernel replaces another for the same op
    // and key, which is fake CUDA's whole point: the program must not see it.
    const QuietWarnings quiet;
    const std::lock_guard<std::mutex> lock(overrides_mutex);
    claim_cuda_kernels(/*take=*/true);
    register_fake_kernels(kCuda);
    register_fake_cuda_kernels();
    claim_cuda_kernels(/*take=*/false);  // the kernels just registered are fake CUDA's
    refuse_other_cuda_layouts();
  }
  static const c10::RegistrationHandleRAII listening =
      c10::Dispatcher::singleton().addRegistrationListener(std::make_unique<OpsAdded>());
  ops_added.store(false);
  take_over_cuda_hooks();
  register_fake_cuda_profiler();
  disable_fused_attention();
  python_cuda_init_reset = python_symbol(kPythonCudaInitSymbol);
  pthread_atfork(nullptr, nullptr, &forked_child);
  FakeDeviceHooks hooks = fake_device_hooks();
  hooks.cuda_count = []() noexcept { return devcheck::fake_cuda_count(); };
  set_fake_device_hooks(hooks);
}

std::vector<c10::Device> devices(int count) {
  std::vector<c10::Device> out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    out.emplace_back(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(i));
  }
  return out;
}

void check_device(int64_t index) { fake_check_index(kCuda, static_cast<int>(index), "device"); }

// ---- what Python's torch.cuda asks torch._C for -----------------------------

// The machine's count; the devices the process sees are decided at its first
// CUDA call (fake_cuda_count).
int64_t py_fake_cuda(int64_t count, bool force) {
  return turn_on_fake_cuda(FakeCudaOptions().count(static_cast<int>(count)).force(force));
}

std::vector<int64_t> py_visible_devices() {
  const int count = devcheck::fake_cuda_count();
  return {visible.begin(), visible.begin() + count};
}

int64_t py_refresh() {
  if (active_count.load() == 0 || !ops_added.exchange(false)) return 0;
  const QuietWarnings quiet;
  const std::lock_guard<std::mutex> lock(overrides_mutex);
  return claim_cuda_kernels(/*take=*/true);
}

void py_init() { CudaState::init(); }

int64_t py_get_device() { return fake_current_index(kCuda); }

void py_set_device(int64_t index) {
  if (index < 0) return;  // torch.cuda.set_device(-1) is a no-op
  CudaState::set_current(static_cast<c10::DeviceIndex>(index));
}

// [stream id, device index, device type] of device `index`'s current (which
// 0), default (1) or a new pool stream (2); index -1: the current device.
std::vector<int64_t> py_stream(int64_t index, int64_t which) {
  const c10::impl::VirtualGuardImpl guard(c10::DeviceType::CUDA);
  const c10::DeviceIndex d =
      index < 0 ? fake_current_index(kCuda) : static_cast<c10::DeviceIndex>(index);
  check_device(d);
  const c10::Device device(c10::DeviceType::CUDA, d);
  const c10::Stream s = which == 0   ? guard.getStream(device)
                        : which == 1 ? guard.getDefaultStream(device)
                                     : guard.getStreamFromGlobalPool(device, false);
  return {s.id(), s.device_index(), static_cast<int64_t>(s.device_type())};
}

void py_set_stream(int64_t stream_id, int64_t index) {
  check_device(index);
  const c10::impl::VirtualGuardImpl guard(c10::DeviceType::CUDA);
  guard.exchangeStream(c10::Stream(
      c10::Stream::UNSAFE, c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index)),
      static_cast<c10::StreamId>(stream_id)));
}

// The counters of one device: allocated bytes now and at peak, bytes handed
// out and given back, blocks handed out and given back, blocks now and at
// peak; reserved bytes now and at peak, segments now and at peak, blocks
// and their bytes taken from and given back to host memory.
std::vector<int64_t> py_memory_stats(int64_t index) {
  const FakeMemoryStats s = fake_memory_stats(kCuda, static_cast<int>(index));
  return {s.allocated_bytes,
          s.peak_allocated_bytes,
          s.allocated_bytes_total,
          s.freed_bytes_total,
          s.allocations,
          s.frees,
          s.blocks,
          s.peak_blocks,
          s.reserved_bytes,
          s.peak_reserved_bytes,
          s.segments,
          s.peak_segments,
          s.host_allocations,
          s.host_frees,
          s.host_allocated_bytes,
          s.host_freed_bytes};
}

void py_reset_memory_stats(int64_t index, bool peak, bool accumulated) {
  if (peak) fake_reset_peak_memory(kCuda, static_cast<int>(index));
  if (accumulated) fake_reset_accumulated_memory(kCuda, static_cast<int>(index));
}

at::Generator py_generator(int64_t index) { return fake_generator(kCuda, static_cast<int>(index)); }

bool py_in_bad_fork() { return in_bad_fork.load(); }

TORCH_LIBRARY_FRAGMENT(devcheck, m) {
  m.def("fake_cuda(int count, bool force) -> int", &py_fake_cuda);
  m.def("fake_cuda_count() -> int",
        [] { return static_cast<int64_t>(devcheck::fake_cuda_count()); });
  m.def("fake_cuda_refresh() -> int", &py_refresh);
  m.def("fake_cuda_init() -> ()", &py_init);
  m.def("fake_cuda_get_device() -> int", &py_get_device);
  m.def("fake_cuda_set_device(int index) -> ()", &py_set_device);
  m.def("fake_cuda_stream(int index, int which) -> int[]", &py_stream);
  m.def("fake_cuda_set_stream(int stream_id, int index) -> ()", &py_set_stream);
  m.def("fake_cuda_memory_stats(int index) -> int[]", &py_memory_stats);
  m.def("fake_cuda_reset_memory_stats(int index, bool peak, bool accumulated) -> ()",
        &py_reset_memory_stats);
  m.def("fake_cuda_empty_cache() -> ()", [] { fake_empty_cache(kCuda); });
  m.def("fake_cuda_generator(int index) -> Generator?", &py_generator);
  m.def("fake_cuda_in_bad_fork() -> bool", &py_in_bad_fork);
  m.def("fake_cuda_visible_devices() -> int[]", &py_visible_devices);
}

}  // namespace

bool fake_cuda_in_bad_fork() noexcept { return in_bad_fork.load(std::memory_order_relaxed); }

void fake_cuda_mark_used() noexcept { cuda_used.store(true, std::memory_order_relaxed); }

std::string fake_cuda_bad_fork_message() {
  return std::string("CUDA error: initialization error") + DEVCHECK_CUDA_CHECK_SUFFIX;
}

}  // namespace detail

int fake_cuda_count() noexcept {
  return detail::active_count.load() == 0 ? 0 : detail::fake_count(detail::kCuda);
}

std::vector<std::string> real_cuda_devices() {
  std::vector<std::string> names;
  for (const detail::CudaDeviceFacts& d : detail::probe_cuda().devices) names.push_back(d.name);
  return names;
}

std::vector<c10::Device> fake_cuda(int count) { return fake_cuda(FakeCudaOptions().count(count)); }

std::vector<c10::Device> fake_cuda(const FakeCudaOptions& options) {
  detail::turn_on_fake_cuda(options);
  return detail::devices(fake_cuda_count());
}

int detail::turn_on_fake_cuda(const FakeCudaOptions& options) {
  const int count = options.count();
  if (count < 1 || count > detail::kMaxFakeDevices) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] fake_cuda({}): expected a number of fake CUDA devices from 1 to {}",
                    count, detail::kMaxFakeDevices));
  }
  const std::lock_guard<std::mutex> lock(detail::setup_mutex);
  const int active = detail::active_count.load();
  if (active == count) return count;
  if (active != 0) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] fake_cuda({}): this process already has {} fake CUDA device{} "
                    "(cuda:0..cuda:{}); "
                    "the count is set once per process",
                    count, active, active == 1 ? "" : "s", active - 1));
  }
  if (!options.force()) {
    const std::vector<std::string> real = real_cuda_devices();
    if (!real.empty()) {
      throw DeviceUnavailableError(fmt::format(
          "[devcheck] fake_cuda: this machine has {} real CUDA device{} ({}), which fake CUDA "
          "would hide from the program; it is not turned on (FakeCudaOptions::force replaces "
          "them anyway)",
          real.size(), real.size() == 1 ? "" : "s", real.front()));
    }
  }
  detail::turn_on(count);
  return count;
}

}  // namespace devcheck
