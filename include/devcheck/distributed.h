#pragma once
/// Distributed data parallel training for LibTorch on PyTorch's own engine,
/// c10d: a process group from the standard environment, a
/// DistributedDataParallel wrapper driving c10d's Reducer (the bucketing
/// engine under Python's DDP), and a distributed sampler. One process per
/// device; devcheck's device rules are checked on every rank.
///
///   devcheck::ProcessGroup group = devcheck::ProcessGroup::from_env();  // RANK, WORLD_SIZE, ...
///   model->to(group.device());
///   devcheck::DistributedDataParallel ddp(model, group);
///   for (auto& batch : batches) {
///     optimizer.zero_grad();
///     at::Tensor loss = loss_fn(ddp.forward([&] { return model->forward(batch.data); }),
///                               batch.target);
///     loss.backward();   // gradients are averaged across ranks while it runs
///     optimizer.step();
///   }
///
/// docs/distributed.md has the whole story (launching, the fake device, NCCL).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/Optional.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/arg.h>
#include <torch/data/samplers/base.h>
#include <torch/nn/module.h>
#include <torch/ordered_dict.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/export.h"

namespace c10d {
class ProcessGroup;
}  // namespace c10d

namespace devcheck {

/// One rank's place in a distributed run, as launchers (`devcheck launch`,
/// torchrun) describe it in the environment. Value type.
struct DEVCHECK_API DistributedEnv {
  int rank = 0;        ///< RANK: 0 .. world_size - 1.
  int world_size = 1;  ///< WORLD_SIZE: processes in the run, >= 1.
  int local_rank = 0;  ///< LOCAL_RANK: index on this machine (the device index); default RANK.
  /// LOCAL_WORLD_SIZE: ranks on this machine, 1 .. world_size; default world_size.
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";  ///< MASTER_ADDR: host of rank 0's store.
  int master_port = 29500;                ///< MASTER_PORT: port of rank 0's store, 1..65535.

  /// Reads RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (all required),
  /// LOCAL_RANK (optional, default RANK) and LOCAL_WORLD_SIZE (optional,
  /// default WORLD_SIZE). Throws InvalidArgumentError naming
  /// the variable that is missing or malformed and what it should be.
  /// Thread-safe (reads the environment only).
  static DistributedEnv from_env();
};

/// How ProcessGroup connects. Chain setters.
struct DEVCHECK_API ProcessGroupOptions {
  /// The device policy: "auto" (cuda:LOCAL_RANK when CUDA is available, else
  /// the CPU), "cpu", "cuda" (cuda:LOCAL_RANK) or "fake" (fake:LOCAL_RANK,
  /// devcheck's fake device; the program must link devcheck::fake_device).
  /// An explicit index ("cuda:1") is refused: each rank's device is
  /// LOCAL_RANK's. Default "auto".
  TORCH_ARG(std::string, device) = "auto";
  /// How long connecting and each collective may wait for the other ranks.
  /// Default 5 minutes.
  TORCH_ARG(std::chrono::milliseconds, timeout) = std::chrono::minutes(5);
};

/// A c10d process group over a TCPStore (rank 0 serves it): Gloo for the CPU
/// and the fake device (whose tensors are staged through host tensors that
/// alias them, as Gloo takes only CPU and CUDA tensors), NCCL for CUDA.
/// Cheap to copy (shared). Collectives must be called by every rank in the
/// same order; one ProcessGroup is not for concurrent use by several threads.
class DEVCHECK_API ProcessGroup {
 public:
  /// Connects this rank to the others. Throws InvalidArgumentError for a bad
  /// `env` or device policy, DeviceUnavailableError when the policy's device
  /// LOCAL_RANK does not exist (or NCCL is not in this LibTorch), and
  /// c10::Error from c10d when the store cannot be reached within the timeout.
  explicit ProcessGroup(const DistributedEnv& env,
                        const ProcessGroupOptions& options = ProcessGroupOptions());
  /// ProcessGroup(DistributedEnv::from_env(), options).
  static ProcessGroup from_env(const ProcessGroupOptions& options = ProcessGroupOptions());

  int rank() const;
  int world_size() const;
  int local_rank() const;
  /// Ranks on this machine (LOCAL_WORLD_SIZE).
  int local_world_size() const;
  /// This rank's device: cuda:LOCAL_RANK, fake:LOCAL_RANK or cpu.
  c10::Device device() const;
  /// "gloo" or "nccl".
  const std::string& backend() const;
  /// How long connecting and each collective may wait (ProcessGroupOptions::timeout).
  std::chrono::milliseconds timeout() const;

  /// Sums `tensor` (on device(), contiguous) over all ranks, in place; blocks.
  void all_reduce_sum(const at::Tensor& tensor) const;
  /// Copies rank `root`'s `tensor` into every rank's, in place; blocks.
  void broadcast(const at::Tensor& tensor, int root = 0) const;
  /// Every rank's `value`, in rank order, through the store; blocks until all
  /// ranks have called it (or the timeout). Each call must be made by every
  /// rank, in the same order.
  std::vector<std::string> all_gather_string(const std::string& value) const;
  /// Waits for every rank.
  void barrier() const;

  /// The c10d group itself, for c10d's own API.
  const c10::intrusive_ptr<c10d::ProcessGroup>& c10d_group() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// How DistributedDataParallel averages gradients.
enum class GradientSync {
  /// c10d's Reducer: gradients are copied into buckets as backward produces
  /// them and each full bucket is all-reduced while backward goes on.
  kBucketed,
  /// One all-reduce per parameter after backward has finished: no buckets,
  /// no overlap (what LibTorch's C++ examples do). For comparison.
  kPerParameterAfterBackward,
};

/// DistributedDataParallel's settings. Chain setters.
struct DEVCHECK_API DistributedDataParallelOptions {
  /// Bucket size cap, in bytes (Python's bucket_cap_mb). Default 25 MiB.
  TORCH_ARG(int64_t, bucket_bytes) = int64_t{25} * 1024 * 1024;
  /// Cap of the first bucket reduced, in bytes: small so communication
  /// starts early. Default 1 MiB.
  TORCH_ARG(int64_t, first_bucket_bytes) = int64_t{1024} * 1024;
  /// Default GradientSync::kBucketed.
  TORCH_ARG(GradientSync, gradient_sync) = GradientSync::kBucketed;
  /// Copy rank 0's buffers to every rank at each forward (Python's
  /// broadcast_buffers). Default true.
  TORCH_ARG(bool, broadcast_buffers) = true;
  /// With GradientSync::kBucketed on Gloo (CPU, fake device) and every rank
  /// on this machine: average each bucket through a shared memory segment
  /// (/dev/shm; per rank the largest bucket plus all parameters' bytes)
  /// instead of Gloo's TCP loopback, on a thread of its own while backward
  /// goes on. Each bucket's memory moves into the segment the first time it
  /// is ready (with gradient_as_bucket_view, the gradients with it), so it is
  /// averaged where it lies, with no copy in or out. When a rank
  /// turns it off, or the segment cannot be made, every rank uses Gloo
  /// (gradient_transport(), shared_memory_declined() say which and why).
  /// Every rank must construct with the same setting to get it. Default true.
  TORCH_ARG(bool, shared_memory) = true;
  /// With the shared memory transport: how long the training thread, when it
  /// averages the last bucket of a backward itself, spins while it waits for
  /// the other ranks before it sleeps. Sleeping gives the core back, but
  /// waking takes a scheduler pass, and on a virtual machine an idle vCPU can
  /// take milliseconds to wake: every step then waits for the slowest
  /// wake-up. Unset: 50 ms when this machine's ranks with their intra-op
  /// threads fit the cores (local_world_size x at::get_num_threads() <= the
  /// cores this process may use: the waiting thread's core would be idle
  /// anyway), else 50 us. Buckets averaged while backward goes on (by the
  /// DDP's own thread) spin 50 us at most: their core is the backward's.
  /// Set it low when other threads of this rank need the core during the
  /// wait (a prefetching loader on a machine the ranks' threads fill).
  TORCH_ARG(c10::optional<std::chrono::microseconds>, spin_wait);
  /// With GradientSync::kBucketed: every parameter's gradient becomes a view
  /// into its bucket (Python's gradient_as_bucket_view), so backward
  /// accumulates straight into the buckets and the Reducer copies no
  /// gradient into a bucket or back (two copies of every gradient a step).
  /// Zero the gradients in place then, with DistributedDataParallel::
  /// zero_grad(): LibTorch 1.13's Optimizer::zero_grad() detaches each
  /// gradient in place, which a view refuses ("Can't detach views
  /// in-place"), and 2.x's sets them to none, after which the next backward
  /// copies them into the buckets again. Default false.
  TORCH_ARG(bool, gradient_as_bucket_view) = false;
};

/// Where a rank's gradient all-reduces spent their time
/// (DistributedDataParallel::gradient_sync_time()).
struct DEVCHECK_API GradientSyncTime {
  /// Buckets averaged (each synchronized backward averages every bucket).
  int64_t all_reduces = 0;
  /// Waiting for the other ranks: to arrive with their gradients (a step
  /// goes at the pace of its slowest rank) and to finish their share.
  double waiting_seconds = 0;
  /// This rank's own part: averaging its share of every rank's gradients
  /// (and copying buckets that are not in the shared segment in and out).
  double averaging_seconds = 0;
};

/// Data parallel training over a ProcessGroup: every rank holds the same
/// model on its own device and trains on its own shard of each batch; after
/// each synchronized backward every parameter's gradient is the mean over
/// ranks, so every rank's optimizer step keeps the replicas identical.
///
/// The constructor exchanges a fingerprint of the module with every rank
/// (each parameter's and buffer's name, shape, dtype and device) and checks
/// it before anything else can fail, so every rank sees a mismatch and
/// throws the same message: DeviceMismatchError when a rank's tensor is not
/// on that rank's device (naming the rank, the tensor, both devices),
/// InvalidArgumentError when ranks disagree on names, shapes or dtypes
/// (naming both ranks and the tensor). It then copies rank 0's parameters
/// and buffers to every rank. Every rank must construct it, in the same
/// order. Not thread-safe; one training loop drives it.
class DEVCHECK_API DistributedDataParallel {
 public:
  DistributedDataParallel(
      std::shared_ptr<torch::nn::Module> module, ProcessGroup group,
      const DistributedDataParallelOptions& options = DistributedDataParallelOptions());
  /// For a module holder (`Classifier`, `torch::nn::Linear`, ...).
  template <typename ModuleHolder,
            typename = decltype(std::declval<ModuleHolder&>().ptr()->parameters())>
  DistributedDataParallel(
      ModuleHolder& module, ProcessGroup group,
      const DistributedDataParallelOptions& options = DistributedDataParallelOptions())
      : DistributedDataParallel(std::static_pointer_cast<torch::nn::Module>(module.ptr()),
                                std::move(group), options) {}
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  /// Runs `fn` (a callable running the module's forward on this rank's
  /// batch) as DDP's forward: when gradients are enabled and not under
  /// no_sync(), the next backward averages gradients over ranks. A backward
  /// whose forward did not go through here is not synchronized.
  template <typename Forward>
  auto forward(Forward&& fn) -> decltype(fn()) {
    before_forward();
    auto out = fn();
    after_forward();
    return out;
  }

  /// While the returned guard lives, backward passes accumulate gradients
  /// locally without communicating (Python's `no_sync()`); the first
  /// synchronized backward after it averages the accumulated gradients.
  class DEVCHECK_API NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallel& ddp);
    ~NoSyncGuard();
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  /// Zeroes every parameter's gradient in place, keeping it where it is (a
  /// bucket view with gradient_as_bucket_view); undefined gradients stay
  /// undefined. In place of optimizer.zero_grad() in the training loop.
  void zero_grad();

  /// The wrapped module.
  const std::shared_ptr<torch::nn::Module>& module() const { return module_; }
  /// The module's parameters and buffers by their own names, with no
  /// `module.` prefix: what a single-process run saves and loads.
  torch::OrderedDict<std::string, at::Tensor> state_dict() const;
  /// The module's parameters by name, no `module.` prefix.
  torch::OrderedDict<std::string, at::Tensor> named_parameters() const;
  const ProcessGroup& process_group() const { return group_; }
  const DistributedDataParallelOptions& options() const { return options_; }
  /// Buckets of parameter indices (into module()->parameters()) as the
  /// Reducer first assigned them; empty for kPerParameterAfterBackward.
  const std::vector<std::vector<size_t>>& bucket_indices() const { return bucket_indices_; }
  /// How gradients travel between ranks: "shared memory", "gloo" or "nccl".
  const std::string& gradient_transport() const { return gradient_transport_; }
  /// Why shared memory is not used on Gloo ("rank 1 is not on rank 0's
  /// machine", "/dev/shm has no room for ..."); empty when it is used or was
  /// not considered (NCCL, kPerParameterAfterBackward, a world of one).
  const std::string& shared_memory_declined() const { return shared_memory_declined_; }
  /// With the shared memory transport, how long the training thread spins
  /// before sleeping while it waits for the other ranks
  /// (DistributedDataParallelOptions::spin_wait, or the default chosen);
  /// zero with any other transport.
  std::chrono::microseconds spin_wait() const { return spin_wait_; }
  /// With the shared memory transport: this rank's gradient all-reduces since
  /// construction and where their time went (waiting for the other ranks,
  /// or averaging), measured on every all-reduce (two clock reads each).
  /// All zero with any other transport: Gloo and NCCL do not tell waiting
  /// from transfer.
  GradientSyncTime gradient_sync_time() const;

  /// Internal: how gradients are averaged (src/distributed/ddp.cc).
  struct Sync;

 private:
  void before_forward();
  void after_forward();

  std::shared_ptr<torch::nn::Module> module_;
  ProcessGroup group_;
  DistributedDataParallelOptions options_;
  std::vector<std::vector<size_t>> bucket_indices_;
  std::string gradient_transport_;
  std::string shared_memory_declined_;
  std::chrono::microseconds spin_wait_{0};
  bool sync_enabled_ = true;
  std::unique_ptr<Sync> sync_;
};

/// Options of DistributedSampler. Chain setters.
struct DEVCHECK_API DistributedSamplerOptions {
  DistributedSamplerOptions(int rank, int world_size) : rank_(rank), world_size_(world_size) {}
  /// This rank, 0 .. world_size - 1.
  TORCH_ARG(int, rank);
  /// Number of ranks (shards).
  TORCH_ARG(int, world_size);
  /// Shuffle each epoch (else the dataset's order). Default true.
  TORCH_ARG(bool, shuffle) = true;
  /// Every rank must pass the same seed. Default 0.
  TORCH_ARG(uint64_t, seed) = 0;
  /// Drop the tail that does not divide evenly instead of padding with
  /// samples from the start. Default false.
  TORCH_ARG(bool, drop_last) = false;
};

/// A torch::data sampler giving each rank its own shard of a dataset, as
/// PyTorch's DistributedSampler does (and with the same indices): the
/// permutation is torch.randperm(size) drawn from a CPU generator seeded with
/// seed + epoch, the same on every rank; it is padded with its own first
/// indices to a multiple of world_size (or cut, with drop_last); rank r takes
/// every world_size-th index from r. Call set_epoch() before each epoch to
/// reshuffle. Not thread-safe.
class DEVCHECK_API DistributedSampler : public torch::data::samplers::Sampler<> {
 public:
  /// Throws InvalidArgumentError for world_size < 1 or rank outside it.
  DistributedSampler(size_t dataset_size, const DistributedSamplerOptions& options);

  /// Chooses the epoch's permutation and rewinds; takes effect now.
  void set_epoch(int64_t epoch);
  int64_t epoch() const { return epoch_; }
  /// Samples this rank sees per epoch (ceil or floor of size / world_size).
  size_t num_samples() const { return num_samples_; }
  /// This rank's indices for the current epoch, in order.
  const std::vector<size_t>& indices() const { return indices_; }

  void reset(c10::optional<size_t> new_size = c10::nullopt) override;
  c10::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  void draw();

  size_t dataset_size_;
  DistributedSamplerOptions options_;
  int64_t epoch_ = 0;
  size_t num_samples_ = 0;
  std::vector<size_t> indices_;
  size_t position_ = 0;
};

}  // namespace devcheck
