#pragma once
/// DevicePrefetcher: puts batches on the device ahead of the training loop.
///
/// LibTorch's C++ data loader has no pinned memory and no device prefetch, so
/// every `batch.data.to(device)` is a synchronous copy on the compute stream.
/// DevicePrefetcher wraps any batch source (a torch::data loader, or any range
/// of batches), collates each batch once (stack the samples, into pinned
/// memory when the target is CUDA), copies it with non_blocking on a side
/// stream while the model computes, and hands it over behind an event, so the
/// copy overlaps compute and the loop itself has no device code:
///
///   auto loader = torch::data::make_data_loader(dataset, batch_size);
///   devcheck::DevicePrefetcher batches(*loader, devcheck::PrefetchOptions(device));
///   for (auto& batch : batches) { loss = step(batch.data, batch.target); }
///
/// Device-generic: streams and events go through LibTorch's device guard
/// interface (c10::Stream, c10::Event, VirtualGuardImpl); on the CPU it is a
/// plain, correct pass-through that still collates on a background thread.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Event.h>
#include <c10/core/Stream.h>
#include <c10/core/StreamGuard.h>
#include <c10/util/Optional.h>
#include <torch/arg.h>
#include <torch/data/example.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "devcheck/export.h"
#include "devcheck/move.h"

namespace devcheck {

/// How a DevicePrefetcher delivers batches. `device` is required; the rest
/// are optional setters, each with its default.
struct DEVCHECK_API PrefetchOptions {
  explicit PrefetchOptions(c10::Device device) : device_(device) {}
  /// Where batches are delivered. A device without an index ("cuda") means
  /// the current device of that type when the prefetcher is made.
  TORCH_ARG(c10::Device, device);
  /// Batches prepared ahead of the consumer (collated and copied, or being
  /// copied). Default 2. More hides slower loading at the cost of one batch
  /// of device memory each; 0 means no background thread: each batch is
  /// collated and copied when the loop asks for it.
  TORCH_ARG(std::size_t, in_flight) = 2;
  /// Collate into pinned (page-locked) host memory when the device is CUDA,
  /// so that the host->device copy is asynchronous. Default true. Ignored for
  /// other devices.
  TORCH_ARG(bool, pin_memory) = true;
};

namespace detail {

/// The device-specific half of DevicePrefetcher (not a template): stacking,
/// pinning, the side stream, events. Immutable after construction; its const
/// methods may be called from the worker and the consumer thread at once.
class DEVCHECK_API Stager {
 public:
  explicit Stager(const PrefetchOptions& options);
  /// The resolved target device ("cuda" -> "cuda:0").
  c10::Device device() const noexcept { return device_; }
  /// Whether copies run on a side stream and are handed over behind events.
  bool asynchronous() const noexcept { return side_stream_.has_value(); }
  /// Whether host batches are staged in pinned memory.
  bool pins() const noexcept { return pins_; }
  /// The copy stream (only when asynchronous()).
  c10::optional<c10::Stream> side_stream() const noexcept { return side_stream_; }

  /// `tensors` stacked along a new first dimension, into pinned memory when pins().
  at::Tensor stack(const std::vector<at::Tensor>& tensors) const;
  /// `t` in pinned memory when pins() (a copy unless it already is), else `t`.
  at::Tensor pin(const at::Tensor& t) const;
  /// `t` on device(), non_blocking when asynchronous(); `t` itself when it is there.
  at::Tensor copy(const at::Tensor& t) const;
  /// An event recorded on the side stream after this batch's copies.
  c10::Event record() const;
  /// Makes the current stream of device() wait for `ready`, and tells the
  /// caching allocator that `tensors` (allocated on the side stream) are used
  /// on the current stream, so their memory is not reused too early.
  void hand_over(const c10::Event& ready, const std::vector<at::Tensor>& tensors) const;

 private:
  c10::Device device_;
  bool pins_ = false;
  c10::optional<c10::Stream> side_stream_;
};

// Collation: a vector of examples becomes one example of stacked tensors;
// anything else (an already collated batch) is passed on unchanged.
DEVCHECK_API torch::data::Example<> collate(std::vector<torch::data::Example<>> samples,
                                            const Stager& stager);
DEVCHECK_API torch::data::TensorExample collate(std::vector<torch::data::TensorExample> samples,
                                                const Stager& stager);
template <typename T>
T collate(T batch, const Stager& /*stager*/) {
  return batch;
}

// Every tensor of a batch pinned and copied to the device, by the one walk
// over nested containers that to_device uses (devcheck/move.h).
template <typename Batch>
Batch stage(const Batch& batch, const Stager& s) {
  return map_tensors(batch, [&](const at::Tensor& t) { return s.copy(s.pin(t)); });
}

// Every tensor of a batch, for hand_over().
template <typename Batch>
std::vector<at::Tensor> collect(const Batch& batch) {
  std::vector<at::Tensor> out;
  for_each_tensor(batch, [&](const at::Tensor& t) { out.push_back(t); });
  return out;
}

}  // namespace detail

/// Prefetches the batches of `Source` onto a device. `Source` is any range
/// (begin()/end()) of batches: a torch::data data loader (whose batches are
/// vectors of examples), a std::vector of batches, ... A batch that is a
/// std::vector<Example> is collated into one Example of stacked tensors; an
/// already collated batch (any nesting of the types map_tensors() walks:
/// tensors, Examples, vectors, maps, pairs, tuples, optionals, c10::Lists,
/// IValues) is copied as it is.
///
/// Each call to begin() (or start()) runs one epoch: it calls source.begin()
/// on the calling thread (so a random sampler is reset there, deterministically
/// for a fixed seed), and a worker thread then walks the source, keeping
/// `in_flight` batches ready. Batches arrive in the source's order. An
/// exception thrown by the source reaches the consumer from next()/operator++
/// as the original exception (same type and message), after which the epoch is
/// over. Destroying the prefetcher (or starting another epoch) mid-epoch stops
/// and joins the worker once the batch it is fetching is done.
///
/// Not thread-safe: one thread consumes. The source must outlive the
/// prefetcher unless the prefetcher owns it (the unique_ptr constructor).
template <typename Source>
class DevicePrefetcher {
  using SourceIterator = decltype(std::declval<Source&>().begin());
  using SourceEnd = decltype(std::declval<Source&>().end());
  using HostBatch = std::decay_t<decltype(*std::declval<SourceIterator&>())>;

 public:
  /// What the loop receives: the collated batch, its tensors on the device.
  using Batch =
      decltype(detail::collate(std::declval<HostBatch>(), std::declval<const detail::Stager&>()));

  /// Prefetches from `source`, which must outlive this object. Throws
  /// DeviceUnavailableError-style c10 errors when the device cannot be used.
  DevicePrefetcher(Source& source, PrefetchOptions options)
      : source_(&source), options_(options), stager_(options_) {}
  /// Prefetches from `source` and owns it (e.g. make_data_loader's result).
  DevicePrefetcher(std::unique_ptr<Source> source, PrefetchOptions options)
      : owned_(std::move(source)), source_(owned_.get()), options_(options), stager_(options_) {}
  ~DevicePrefetcher() { stop(); }

  DevicePrefetcher(const DevicePrefetcher&) = delete;
  DevicePrefetcher& operator=(const DevicePrefetcher&) = delete;
  DevicePrefetcher(DevicePrefetcher&&) = delete;
  DevicePrefetcher& operator=(DevicePrefetcher&&) = delete;

  /// Input iterator over one epoch's batches.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = Batch*;
    using reference = Batch&;

    Iterator() = default;
    Batch& operator*() { return *current_; }
    Batch* operator->() { return &*current_; }
    /// Fetches the next batch; rethrows a source's exception.
    Iterator& operator++() {
      current_ = owner_->next();
      return *this;
    }
    bool operator==(const Iterator& other) const {
      return current_.has_value() == other.current_.has_value() &&
             (!current_.has_value() || owner_ == other.owner_);
    }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    friend class DevicePrefetcher;
    explicit Iterator(DevicePrefetcher* owner) : owner_(owner), current_(owner->next()) {}
    DevicePrefetcher* owner_ = nullptr;
    c10::optional<Batch> current_;
  };

  /// Starts an epoch (see start()) and returns its first batch.
  Iterator begin() {
    start();
    return Iterator(this);
  }
  /// The end of every epoch.
  Iterator end() { return Iterator(); }

  /// Starts an epoch: stops a running one, calls source.begin() on this thread
  /// and, with in_flight > 0, starts the worker.
  void start() {
    stop();
    SourceIterator it = source_->begin();
    SourceEnd last = source_->end();
    running_ = true;
    if (options_.in_flight() == 0) {
      sync_.emplace(std::move(it), std::move(last));
      return;
    }
    worker_ = std::thread([this, it = std::move(it), last = std::move(last)]() mutable {
      work(std::move(it), std::move(last));
    });
  }

  /// The next batch of the current epoch, or nullopt when it is over (or none
  /// was started). Rethrows the source's exception, once.
  c10::optional<Batch> next() {
    if (!running_) return c10::nullopt;
    if (sync_) return next_synchronous();
    Slot slot;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      not_empty_.wait(lock, [&] { return !queue_.empty(); });
      slot = std::move(queue_.front());
      queue_.pop_front();
    }
    not_full_.notify_one();
    if (slot.error || !slot.batch) {
      finish();
      if (slot.error) std::rethrow_exception(slot.error);
      return c10::nullopt;
    }
    if (slot.ready) {
      stager_.hand_over(*slot.ready, detail::collect(*slot.batch));
    }
    return std::move(slot.batch);
  }

  /// Stops the current epoch, if any: wakes and joins the worker, drops the
  /// prepared batches. Safe to call at any time.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    not_full_.notify_all();
    finish();
  }

  const PrefetchOptions& options() const noexcept { return options_; }
  /// The resolved device batches are delivered to.
  c10::Device device() const noexcept { return stager_.device(); }

 private:
  struct Slot {
    c10::optional<Batch> batch;       // empty with no error: the end of the epoch
    c10::optional<c10::Event> ready;  // recorded after the copies, when asynchronous
    std::exception_ptr error;
  };

  Slot produce(HostBatch host, bool side_stream) {
    Slot slot;
    Batch collated = detail::collate(std::move(host), stager_);
    if (side_stream && stager_.asynchronous()) {
      c10::OptionalStreamGuard guard(stager_.side_stream());
      slot.batch = detail::stage(collated, stager_);
      slot.ready = stager_.record();
    } else {
      slot.batch = detail::stage(collated, stager_);
    }
    return slot;
  }

  void work(SourceIterator it, SourceEnd last) {
    try {
      // *it is copied, never moved: it may be an element of the caller's
      // container (a copy of a batch copies tensor handles, not data).
      for (; it != last; ++it) {
        if (!push(produce(HostBatch(*it), /*side_stream=*/true))) return;
      }
      push(Slot{});
    } catch (...) {
      Slot failed;
      failed.error = std::current_exception();
      push(std::move(failed));
    }
  }

  // Waits for room; false when the epoch is being stopped.
  bool push(Slot slot) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      not_full_.wait(lock, [&] { return stopping_ || queue_.size() < options_.in_flight(); });
      if (stopping_) return false;
      queue_.push_back(std::move(slot));
    }
    not_empty_.notify_one();
    return true;
  }

  c10::optional<Batch> next_synchronous() {
    auto& [it, last] = *sync_;
    try {
      // Advance before reading, as the worker's loop does: a torch::data
      // iterator fetches the next batch in operator++, and that fetch (or its
      // exception) belongs to the next call.
      if (sync_advance_) ++it;
      sync_advance_ = true;
      if (!(it != last)) {
        finish();
        return c10::nullopt;
      }
      return std::move(produce(HostBatch(*it), /*side_stream=*/false).batch);
    } catch (...) {
      finish();
      throw;
    }
  }

  // Joins the worker (which must be finishing or told to stop) and resets.
  void finish() {
    if (worker_.joinable()) worker_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.clear();
    sync_.reset();
    sync_advance_ = false;
    stopping_ = false;
    running_ = false;
  }

  std::unique_ptr<Source> owned_;
  Source* source_;
  PrefetchOptions options_;
  detail::Stager stager_;

  bool running_ = false;
  std::optional<std::pair<SourceIterator, SourceEnd>> sync_;
  bool sync_advance_ = false;  // whether the next synchronous read advances first
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<Slot> queue_;
  bool stopping_ = false;
};

template <typename Source>
DevicePrefetcher(Source&, PrefetchOptions) -> DevicePrefetcher<Source>;
template <typename Source>
DevicePrefetcher(std::unique_ptr<Source>, PrefetchOptions) -> DevicePrefetcher<Source>;

}  // namespace devcheck
