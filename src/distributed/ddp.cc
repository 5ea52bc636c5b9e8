// DistributedDataParallel: the construction checks, rank 0's state copied to
// every rank, and gradient averaging through c10d's Reducer (as Python's
// torch/nn/parallel/distributed.py drives it) or per parameter after backward.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/ivalue.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "detail/compat.h"
#include "detail/names.h"
#include "devcheck/distributed.h"
#include "devcheck/error.h"
#include "distributed/fingerprint.h"
#include "distributed/gloo_tensor.h"
#include "distributed/local_all_reduce.h"
#include "process/cores.h"

namespace devcheck {

struct DistributedDataParallel::Sync {
  virtual ~Sync() = default;
  virtual void before_forward(bool grad_enabled, bool sync) = 0;
  virtual void after_forward(bool grad_enabled, bool sync) = 0;
  virtual GradientSyncTime time() const { return {}; }
};

namespace {

// The Reducer's all-reduce for devices Gloo cannot take (the fake device):
// the bucket, divided by the world size as the built-in hook does, is
// all-reduced through a host tensor over its bytes.
class StagedAllReduceHook final : public c10d::CommHookInterface {
 public:
  explicit StagedAllReduceHook(ProcessGroup group) : group_(std::move(group)) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    at::Tensor buffer = bucket.getBufferRef();
    buffer.div_(group_.world_size());
    std::vector<at::Tensor> tensors{detail::communicable(buffer, group_.backend())};
    const at::Tensor staged = tensors[0];
    auto work = group_.c10d_group()->allreduce(tensors);
    return work->getFuture()->then(
        [buffer, staged](c10::ivalue::Future& /*done*/) {
          detail::finish_staging(buffer, staged);
          return c10::IValue(buffer);
        },
        c10::TensorType::get());
  }

  at::Tensor parseHookResult(const c10::IValue& result) override {
    return result.isTensor() ? result.toTensor() : result.toTensorVector().at(0);
  }

 private:
  ProcessGroup group_;
};

// The Reducer's all-reduce between ranks of one machine, in host memory (CPU,
// fake device). Each bucket's memory is moved into the segment the first time
// the bucket is ready (LocalAllReduce::adopt; with gradient_as_bucket_view the
// gradients, views of the bucket, then live there too), so the ranks average
// it where it is instead of copying it in and out. Each ready bucket goes to a
// worker thread, which averages it while backward goes on and completes the
// bucket's future; the last bucket, when nothing is queued before it, is
// averaged on the thread that launches it. Buckets are reduced in the order
// the Reducer launches them, the same on every rank. A bucket larger than the
// segment's slots (not expected: they are sized from the bucket caps) goes
// through the group.
class SharedMemoryAllReduceHook final : public c10d::CommHookInterface {
 public:
  SharedMemoryAllReduceHook(std::unique_ptr<detail::LocalAllReduce> local, ProcessGroup group,
                            std::chrono::microseconds inline_spin)
      : local_(std::move(local)), fallback_(std::move(group)), inline_spin_(inline_spin) {
    worker_ = std::thread([this] { run(); });
  }
  ~SharedMemoryAllReduceHook() override {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    worker_.join();
  }
  SharedMemoryAllReduceHook(const SharedMemoryAllReduceHook&) = delete;
  SharedMemoryAllReduceHook& operator=(const SharedMemoryAllReduceHook&) = delete;

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    at::Tensor buffer = bucket.getBufferRef();
    // Every rank decides alike (the buckets have the same sizes everywhere).
    if (static_cast<size_t>(buffer.numel() * buffer.element_size()) > local_->capacity()) {
      return fallback_.runHook(bucket);
    }
    // On this thread: the worker may be reading an earlier bucket, never this one.
    local_->adopt(buffer);
    auto future = c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // The last bucket of a backward, with no earlier one still queued or
      // being reduced: nothing is left to overlap, so this thread reduces it
      // at once instead of handing it over and sleeping until it is done
      // (two wake-ups per step that, on busy cores, cost more than the
      // all-reduce). Order holds: only this hook queues work.
      if (bucket.isLast() && jobs_.empty() && !busy_) {
        lock.unlock();
        reduce({std::move(buffer), future}, inline_spin_);
        return future;
      }
      jobs_.push_back({std::move(buffer), future});
    }
    ready_.notify_one();
    return future;
  }

  at::Tensor parseHookResult(const c10::IValue& result) override {
    return result.isTensor() ? result.toTensor() : result.toTensorVector().at(0);
  }

  GradientSyncTime time() const { return local_->time(); }

 private:
  struct Job {
    at::Tensor buffer;
    c10::intrusive_ptr<c10::ivalue::Future> future;
  };

  void run() {
    local_->hold_alive();  // the other ranks see this rank gone when this thread ends
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        busy_ = false;
        ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        busy_ = true;
      }
      reduce(job, detail::LocalAllReduce::kShortSpin);
    }
  }

  void reduce(const Job& job, std::chrono::microseconds spin) {
    try {
      const at::Tensor staged = detail::communicable(job.buffer, "gloo");
      local_->all_reduce_mean(staged, &stopping_, spin);
      detail::finish_staging(job.buffer, staged);
      job.future->markCompleted(c10::IValue(job.buffer));
    } catch (...) {
      job.future->setError(std::current_exception());
    }
  }

  std::unique_ptr<detail::LocalAllReduce> local_;
  StagedAllReduceHook fallback_;
  std::chrono::microseconds inline_spin_;  // for the bucket reduced on the training thread
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool busy_ = false;  // the worker is reducing a job it took off jobs_
  std::atomic<bool> stopping_{false};
};

// The most bytes one bucket can hold: buckets close once they reach their cap,
// so a cap plus the largest parameter, and never more than all parameters.
size_t largest_bucket_bytes(const std::vector<at::Tensor>& params,
                            const DistributedDataParallelOptions& o) {
  size_t total = 0;
  size_t largest = 0;
  for (const at::Tensor& p : params) {
    const auto bytes = static_cast<size_t>(p.numel() * p.element_size());
    total += bytes;
    largest = std::max(largest, bytes);
  }
  const auto cap = static_cast<size_t>(std::max(o.bucket_bytes(), o.first_bucket_bytes()));
  return std::min(total, cap + largest);
}

// Room for every bucket in the segment: the parameters' bytes, each bucket
// rounded up to a cache line (at most one bucket per parameter).
size_t all_buckets_bytes(const std::vector<at::Tensor>& params) {
  size_t total = 0;
  for (const at::Tensor& p : params)
    total += static_cast<size_t>(p.numel() * p.element_size()) + detail::LocalAllReduce::kAlignment;
  return total;
}

// DistributedDataParallelOptions::spin_wait's default: spin while the
// waiting thread's core would be idle anyway.
std::chrono::microseconds default_spin_wait(const ProcessGroup& group) {
  const int64_t busy = static_cast<int64_t>(std::max(1, group.local_world_size())) *
                       std::max(1, at::get_num_threads());
  return busy <= detail::usable_cores() ? std::chrono::microseconds(50000)
                                        : detail::LocalAllReduce::kShortSpin;
}

class ReducerSync final : public DistributedDataParallel::Sync {
 public:
  ReducerSync(const std::vector<at::Tensor>& params, std::unordered_map<size_t, std::string> names,
              const ProcessGroup& group, const DistributedDataParallelOptions& o,
              std::vector<std::vector<size_t>>& buckets, std::string& transport,
              std::string& declined, std::chrono::microseconds& spin) {
    const std::vector<bool> sparse(params.size(), false);
    auto [indices, limits] = c10d::compute_bucket_assignment_by_size(
        params,
        {static_cast<size_t>(o.first_bucket_bytes()), static_cast<size_t>(o.bucket_bytes())},
        sparse);
    // Gradients arrive roughly in reverse order of definition: reduce the
    // buckets of the last parameters first (as Python's DDP does).
    std::reverse(indices.begin(), indices.end());
    std::reverse(limits.begin(), limits.end());
    buckets = indices;
    reducer_ = detail::make_reducer<c10d::Reducer>(
        params, std::move(indices), std::move(limits), group.c10d_group(), sparse, o.bucket_bytes(),
        o.gradient_as_bucket_view(), std::move(names), o.first_bucket_bytes());
    const c10::DeviceType type = group.device().type();
    staged_ = type != c10::kCPU && type != c10::kCUDA;
    transport = group.backend();
    // Gloo's ranks on one machine: gradients through shared memory instead of
    // TCP loopback. Collective (every Gloo rank takes part, whatever it wants).
    std::unique_ptr<detail::LocalAllReduce> local;
    if (group.backend() == "gloo" && group.world_size() > 1) {
      local =
          detail::LocalAllReduce::connect(group, largest_bucket_bytes(params, o),
                                          all_buckets_bytes(params), o.shared_memory(), &declined);
    }
    if (local) {
      transport = "shared memory";
      spin = o.spin_wait() ? *o.spin_wait() : default_spin_wait(group);
      auto hook = std::make_unique<SharedMemoryAllReduceHook>(std::move(local), group, spin);
      shared_memory_ = hook.get();  // owned by the Reducer, which this object owns
      reducer_->register_comm_hook(std::move(hook));
    } else if (staged_) {
      reducer_->register_comm_hook(std::make_unique<StagedAllReduceHook>(group));
    }
  }

  void before_forward(bool grad_enabled, bool sync) override {
    if (grad_enabled && sync) reducer_->prepare_for_forward();
    // Once, after the first backward: buckets in the order gradients came.
    // Not on a staged device: the Reducer broadcasts the new order as a
    // tensor on the parameters' device through the c10d dispatcher, which
    // has no kernel for the fake device (its buckets keep their first order).
    if (grad_enabled && !staged_) reducer_->rebuild_buckets();
  }

  void after_forward(bool grad_enabled, bool sync) override {
    if (grad_enabled && sync) reducer_->prepare_for_backward({});
  }

  GradientSyncTime time() const override {
    return shared_memory_ != nullptr ? shared_memory_->time() : GradientSyncTime{};
  }

 private:
  std::unique_ptr<c10d::Reducer> reducer_;
  const SharedMemoryAllReduceHook* shared_memory_ = nullptr;
  bool staged_ = false;
};

// One blocking all-reduce per parameter once backward has finished: the
// first gradient hook of a synchronized backward queues the reduction as an
// autograd engine callback, which runs after the last gradient is accumulated.
class PerParameterSync final : public DistributedDataParallel::Sync {
 public:
  PerParameterSync(std::vector<at::Tensor> params, ProcessGroup group)
      : params_(std::move(params)), group_(std::move(group)) {
    hooks_.reserve(params_.size());
    for (const at::Tensor& p : params_) {
      hooks_.push_back(p.register_hook([this](const at::Tensor& /*grad*/) { on_gradient(); }));
    }
  }
  ~PerParameterSync() override {
    for (size_t i = 0; i < params_.size(); ++i) params_[i].remove_hook(hooks_[i]);
  }

  void before_forward(bool /*grad_enabled*/, bool /*sync*/) override {}
  void after_forward(bool grad_enabled, bool sync) override { armed_ = grad_enabled && sync; }

 private:
  void on_gradient() {
    if (!armed_ || queued_) return;
    queued_ = true;
    torch::autograd::Engine::get_default_engine().queue_callback([this] { reduce(); });
  }

  void reduce() {
    armed_ = false;
    queued_ = false;
    const c10::NoGradGuard no_grad;
    for (const at::Tensor& p : params_) {
      const at::Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      group_.all_reduce_sum(grad);
      grad.div_(group_.world_size());
    }
  }

  std::vector<at::Tensor> params_;
  ProcessGroup group_;
  std::vector<unsigned> hooks_;
  bool armed_ = false;
  bool queued_ = false;
};

}  // namespace

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<torch::nn::Module> module,
                                                 ProcessGroup group,
                                                 const DistributedDataParallelOptions& options)
    : module_(std::move(module)), group_(std::move(group)), options_(options) {
  if (!module_) {
    throw InvalidArgumentError(
        "[devcheck] DistributedDataParallel: expected a module; received an empty pointer");
  }
  // Every rank publishes its fingerprint before any rank checks anything, so
  // a mismatch makes every rank throw instead of leaving one waiting.
  const detail::ModuleFingerprint mine = detail::fingerprint(*module_, group_);
  const std::vector<std::string> all = group_.all_gather_string(mine.serialize());
  std::vector<detail::ModuleFingerprint> ranks;
  ranks.reserve(all.size());
  for (const std::string& text : all) ranks.push_back(detail::ModuleFingerprint::parse(text));
  detail::check_fingerprints(ranks);

  {
    const c10::NoGradGuard no_grad;
    for (const at::Tensor& p : module_->parameters()) group_.broadcast(p, 0);
    for (const at::Tensor& b : module_->buffers()) group_.broadcast(b, 0);
  }

  std::vector<at::Tensor> params;
  std::unordered_map<size_t, std::string> names;
  for (const auto& item : module_->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    names[params.size()] = item.key();
    params.push_back(item.value());
  }
  if (params.empty()) {
    throw InvalidArgumentError(
        "[devcheck] DistributedDataParallel: expected a module with parameters that require "
        "gradients; this one has none, so there is nothing to average");
  }
  if (options_.gradient_sync() == GradientSync::kBucketed) {
    sync_ =
        std::make_unique<ReducerSync>(params, std::move(names), group_, options_, bucket_indices_,
                                      gradient_transport_, shared_memory_declined_, spin_wait_);
  } else {
    gradient_transport_ = group_.backend();
    sync_ = std::make_unique<PerParameterSync>(std::move(params), group_);
  }
}

DistributedDataParallel::~DistributedDataParallel() = default;

void DistributedDataParallel::before_forward() {
  const bool grad = c10::GradMode::is_enabled();
  sync_->before_forward(grad, sync_enabled_);
  if (options_.broadcast_buffers() && group_.world_size() > 1) {
    const c10::NoGradGuard no_grad;
    for (const at::Tensor& b : module_->buffers()) group_.broadcast(b, 0);
  }
}

void DistributedDataParallel::after_forward() {
  sync_->after_forward(c10::GradMode::is_enabled(), sync_enabled_);
}

GradientSyncTime DistributedDataParallel::gradient_sync_time() const { return sync_->time(); }

void DistributedDataParallel::zero_grad() {
  const c10::NoGradGuard no_grad;
  for (const at::Tensor& p : module_->parameters()) {
    if (p.grad().defined()) p.grad().zero_();
  }
}

DistributedDataParallel::NoSyncGuard::NoSyncGuard(DistributedDataParallel& ddp)
    : ddp_(ddp), previous_(ddp.sync_enabled_) {
  ddp_.sync_enabled_ = false;
}

DistributedDataParallel::NoSyncGuard::~NoSyncGuard() { ddp_.sync_enabled_ = previous_; }

torch::OrderedDict<std::string, at::Tensor> DistributedDataParallel::state_dict() const {
  torch::OrderedDict<std::string, at::Tensor> out;
  for (const auto& item : module_->named_parameters()) out.insert(item.key(), item.value());
  for (const auto& item : module_->named_buffers()) out.insert(item.key(), item.value());
  return out;
}

torch::OrderedDict<std::string, at::Tensor> DistributedDataParallel::named_parameters() const {
  return module_->named_parameters();
}

}  // namespace devcheck
