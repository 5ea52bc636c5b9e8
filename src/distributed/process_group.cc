// ProcessGroup: the standard environment, a TCPStore served by rank 0, and
// c10d's Gloo (CPU, fake device) or NCCL (CUDA) backend over it.
#include <ATen/ATen.h>
#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#ifdef DEVCHECK_HAS_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "detail/compat.h"
#include "devcheck/device.h"
#include "devcheck/distributed.h"
#include "devcheck/error.h"
#include "distributed/gloo_tensor.h"

namespace devcheck {
namespace {

std::optional<std::string> getenv_string(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// An integer in [low, high] from variable `name`; `what` says what it is.
int env_int(const char* name, long low, long high, const char* what) {
  const std::optional<std::string> text = getenv_string(name);
  if (!text || text->empty()) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] distributed: environment variable {} is not set; expected {}. Start the "
        "ranks with a launcher that sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT "
        "(devcheck launch, torchrun)",
        name, what));
  }
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < low || value > high) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] distributed: environment variable {}={:?} is not {}", name, *text, what));
  }
  return static_cast<int>(value);
}

#ifdef DEVCHECK_HAS_GLOO
bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Gloo's network device: GLOO_SOCKET_IFNAME as in PyTorch; loopback for a
// run on this machine; else the address this host's name resolves to.
std::shared_ptr<::gloo::transport::Device> gloo_device(const std::string& master_addr) {
  if (const auto ifname = getenv_string("GLOO_SOCKET_IFNAME"); ifname && !ifname->empty()) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(*ifname);
  }
  if (is_loopback(master_addr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}
#endif

// The device policy applied to LOCAL_RANK.
c10::Device rank_device(const std::string& policy, int local_rank) {
  const DeviceSpec spec = DeviceSpec::parse(policy);
  if (spec.index()) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] distributed: device policy {:?} names an index; each rank's device is "
        "LOCAL_RANK's, so expected \"auto\", \"cpu\", \"cuda\" or \"fake\"",
        policy));
  }
  switch (spec.kind()) {
    case DeviceSpec::Kind::kCpu:
      return c10::Device(c10::kCPU);
    case DeviceSpec::Kind::kCuda:
      return select_device(fmt::format("cuda:{}", local_rank)).device;
    case DeviceSpec::Kind::kFake:
      return select_device(fmt::format("fake:{}", local_rank)).device;
    case DeviceSpec::Kind::kAuto:
    case DeviceSpec::Kind::kGpu: {
      const Selection any = select_device(spec);
      if (any.device.is_cuda()) return select_device(fmt::format("cuda:{}", local_rank)).device;
      if (spec.kind() == DeviceSpec::Kind::kGpu) return any.device;
      return c10::Device(c10::kCPU);
    }
    default:
      throw InvalidArgumentError(fmt::format(
          "[devcheck] distributed: device policy {:?} is not one a rank can train on; expected "
          "\"auto\", \"cpu\", \"cuda\" or \"fake\"",
          policy));
  }
}

}  // namespace

DistributedEnv DistributedEnv::from_env() {
  DistributedEnv env;
  env.world_size = env_int("WORLD_SIZE", 1, INT_MAX, "an integer >= 1 (the number of ranks)");
  env.rank = env_int(
      "RANK", 0, env.world_size - 1,
      fmt::format("an integer in [0, {}) (WORLD_SIZE={})", env.world_size, env.world_size).c_str());
  env.local_rank = getenv_string("LOCAL_RANK")
                       ? env_int("LOCAL_RANK", 0, INT_MAX, "an integer >= 0 (the device index)")
                       : env.rank;
  env.local_world_size =
      getenv_string("LOCAL_WORLD_SIZE")
          ? env_int("LOCAL_WORLD_SIZE", 1, env.world_size,
                    fmt::format("an integer in [1, {}] (the ranks on this machine; WORLD_SIZE={})",
                                env.world_size, env.world_size)
                        .c_str())
          : env.world_size;
  const std::optional<std::string> addr = getenv_string("MASTER_ADDR");
  if (!addr || addr->empty()) {
    throw InvalidArgumentError(
        "[devcheck] distributed: environment variable MASTER_ADDR is not set; expected the host "
        "of rank 0 (127.0.0.1 for one machine). Start the ranks with a launcher that sets RANK, "
        "WORLD_SIZE, MASTER_ADDR and MASTER_PORT (devcheck launch, torchrun)");
  }
  env.master_addr = *addr;
  env.master_port = env_int("MASTER_PORT", 1, 65535, "a TCP port in 1..65535");
  return env;
}

struct ProcessGroup::Impl {
  DistributedEnv env;
  c10::Device device = c10::Device(c10::kCPU);
  std::string backend;
  std::chrono::milliseconds timeout{0};
  c10::intrusive_ptr<c10d::Store> store;  // devcheck's own keys ("devcheck/...")
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  int64_t gathers = 0;  // all_gather_string calls so far: each call's keys are its own
};

ProcessGroup::ProcessGroup(const DistributedEnv& env, const ProcessGroupOptions& options) {
  if (env.world_size < 1 || env.rank < 0 || env.rank >= env.world_size) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] distributed: rank {} is outside a world of {} (expected 0 <= rank < "
        "world_size)",
        env.rank, env.world_size));
  }
  if (env.master_port < 1 || env.master_port > 65535) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] distributed: master port {} is not a TCP port in 1..65535", env.master_port));
  }
  auto impl = std::make_shared<Impl>();
  impl->env = env;
  impl->timeout = options.timeout();
  impl->device = rank_device(options.device(), env.local_rank);
  impl->backend = impl->device.is_cuda() ? "nccl" : "gloo";
#ifndef DEVCHECK_HAS_GLOO
  // Before the store: no rank waits for the others only to fail.
  if (impl->backend == "gloo") {
    throw DeviceUnavailableError(fmt::format(
        "[devcheck] distributed: rank {} would train on {}, which needs c10d's Gloo backend, but "
        "this build of devcheck has none: the LibTorch it was built against ships no gloo headers "
        "(a torch pip wheel); install them (Debian: libgloo-dev, or gloo's include/ beside "
        "torch's) and rebuild devcheck, or train on CUDA (NCCL)",
        env.rank, impl->device.str()));
  }
#endif

  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<std::uint16_t>(env.master_port);
  store_options.isServer = env.rank == 0;
  store_options.numWorkers = static_cast<std::size_t>(env.world_size);
  store_options.waitWorkers = true;
  store_options.timeout = options.timeout();
  detail::use_classic_tcp_store(store_options, 0);
  auto tcp = c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
  impl->store = c10::make_intrusive<c10d::PrefixStore>("devcheck", tcp);
  auto backend_store = c10::make_intrusive<c10d::PrefixStore>("pg", tcp);

  if (impl->backend == "nccl") {
#ifdef USE_C10D_NCCL
    auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
    nccl_options->timeout = options.timeout();
    auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(backend_store, env.rank, env.world_size,
                                                            nccl_options);
    impl->group = detail::process_group_over<c10d::ProcessGroup>(
        nccl, tcp, env.rank, env.world_size, c10::kCUDA, detail::C10dBackend::kNccl);
#else
    throw DeviceUnavailableError(fmt::format(
        "[devcheck] distributed: rank {} would train on {}, which needs NCCL, but this build of "
        "devcheck has no NCCL (it was built against a LibTorch without CUDA); use the device "
        "policy \"cpu\" (Gloo)",
        env.rank, impl->device.str()));
#endif
  } else {
#ifdef DEVCHECK_HAS_GLOO
    auto gloo_options = c10d::ProcessGroupGloo::Options::create(options.timeout());
    gloo_options->devices.push_back(gloo_device(env.master_addr));
    auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(backend_store, env.rank, env.world_size,
                                                            gloo_options);
    impl->group = detail::process_group_over<c10d::ProcessGroup>(
        gloo, tcp, env.rank, env.world_size, c10::kCPU, detail::C10dBackend::kGloo);
#endif
  }
  impl_ = std::move(impl);
}

ProcessGroup ProcessGroup::from_env(const ProcessGroupOptions& options) {
  return ProcessGroup(DistributedEnv::from_env(), options);
}

int ProcessGroup::rank() const { return impl_->env.rank; }
int ProcessGroup::world_size() const { return impl_->env.world_size; }
int ProcessGroup::local_rank() const { return impl_->env.local_rank; }
int ProcessGroup::local_world_size() const { return impl_->env.local_world_size; }
c10::Device ProcessGroup::device() const { return impl_->device; }
const std::string& ProcessGroup::backend() const { return impl_->backend; }
std::chrono::milliseconds ProcessGroup::timeout() const { return impl_->timeout; }
const c10::intrusive_ptr<c10d::ProcessGroup>& ProcessGroup::c10d_group() const {
  return impl_->group;
}

void ProcessGroup::all_reduce_sum(const at::Tensor& tensor) const {
  std::vector<at::Tensor> tensors{detail::communicable(tensor, impl_->backend)};
  impl_->group->allreduce(tensors)->wait();
  detail::finish_staging(tensor, tensors[0]);
}

void ProcessGroup::broadcast(const at::Tensor& tensor, int root) const {
  std::vector<at::Tensor> tensors{detail::communicable(tensor, impl_->backend)};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  impl_->group->broadcast(tensors, options)->wait();
  detail::finish_staging(tensor, tensors[0]);
}

std::vector<std::string> ProcessGroup::all_gather_string(const std::string& value) const {
  const int64_t call = impl_->gathers++;
  const auto key = [call](int rank) { return fmt::format("gather/{}/{}", call, rank); };
  impl_->store->set(key(impl_->env.rank), std::vector<uint8_t>(value.begin(), value.end()));
  std::vector<std::string> all;
  all.reserve(static_cast<size_t>(impl_->env.world_size));
  for (int r = 0; r < impl_->env.world_size; ++r) {
    if (r == impl_->env.rank) {
      all.push_back(value);
      continue;
    }
    const std::vector<uint8_t> bytes = impl_->store->get(key(r));
    all.emplace_back(bytes.begin(), bytes.end());
  }
  return all;
}

void ProcessGroup::barrier() const { impl_->group->barrier()->wait(); }

}  // namespace devcheck
