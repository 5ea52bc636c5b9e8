#pragma once
/// The end-to-end Fashion-MNIST classifier: the model, and a
/// trainer that decides the device once (devcheck's device policy), moves the
/// model once, lets a DevicePrefetcher put batches on the device, and runs a
/// loop with no device code in it. `devcheck train` is a thin CLI over
/// train_classifier().

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "classifier/fashion_mnist.h"

namespace devcheck {

/// The classifier's model: Conv2d(1, 32, 3) -> ReLU -> Flatten -> Linear(32*26*26, 10).
/// Parameters: conv.weight, conv.bias, fc.weight, fc.bias. Input [N, 1, 28, 28],
/// output [N, 10] logits. Thread-safety as any torch::nn::Module.
class ClassifierImpl : public torch::nn::Module {
 public:
  ClassifierImpl();
  at::Tensor forward(const at::Tensor& images);

  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Classifier);

/// How the learning rate changes over a run.
enum class LrSchedule {
  kConstant,  ///< learning_rate throughout.
  kCosine,    ///< learning_rate * (1 + cos(pi * p)) / 2, p the fraction of all
              ///< epochs done: from learning_rate down towards 0 at the end.
};

/// What train_classifier() does. Every field has a default; chain setters.
struct TrainOptions {
  /// Where to train: "auto", "cpu", "cuda", "cuda:N" (see DeviceSpec). Default "auto".
  TORCH_ARG(std::string, device) = "auto";
  /// Total epochs; a resumed run continues up to this count. Default 1.
  TORCH_ARG(int64_t, epochs) = 1;
  /// Samples per batch. Default 32.
  TORCH_ARG(int64_t, batch_size) = 32;
  /// Adam's learning rate. Default 2.5e-3 (docs/train.md says how it was chosen).
  TORCH_ARG(double, learning_rate) = 2.5e-3;
  /// The learning rate over the run, as a function of the epoch and the step
  /// in it: a run resumed with the same `epochs` follows the same schedule;
  /// one resumed with more continues where the longer schedule is at that
  /// epoch. Default kCosine.
  TORCH_ARG(LrSchedule, lr_schedule) = LrSchedule::kCosine;
  /// Seed for weights and shuffling; a fixed seed gives the same run on the
  /// same device. Each epoch's order depends only on (seed, epoch), so a
  /// resumed run sees the batches the uninterrupted run would have. Default 0.
  TORCH_ARG(uint64_t, seed) = 0;
  /// Mixed precision: autocast (bfloat16 on the CPU, float16 on CUDA) and, on
  /// CUDA, a GradScaler. Default false.
  TORCH_ARG(bool, amp) = false;
  /// Folder with the four Fashion-MNIST IDX files. Default Debian's.
  TORCH_ARG(std::string, data_dir) = kFashionMnistDir;
  /// Checkpoint written after every epoch (weights, Adam state, epoch, step);
  /// empty for none. Default empty.
  TORCH_ARG(std::string, out);
  /// Checkpoint to resume from (onto this run's device); empty for a fresh
  /// run. Default empty.
  TORCH_ARG(std::string, resume);
  /// Optimizer steps per epoch at most; 0 for whole epochs. For quick runs
  /// and tests. Default 0.
  TORCH_ARG(int64_t, max_steps) = 0;
  /// Test samples evaluated at the end (the first N); 0 for all. Default 0.
  TORCH_ARG(int64_t, test_samples) = 0;
  /// Batches the prefetcher keeps in flight (PrefetchOptions::in_flight); 0
  /// collates each batch on the training thread. Unset (the default): chosen
  /// by default_prefetch() for this run's device, ranks and threads.
  TORCH_ARG(std::optional<std::size_t>, prefetch);
  /// Intra-op threads (at::set_num_threads); 0 keeps LibTorch's setting. Default 0.
  TORCH_ARG(int, threads) = 0;
  /// Steps between progress reports (each costs one device sync). Default 50.
  TORCH_ARG(int64_t, report_every) = 50;
  /// Processes of a distributed data parallel run. 1: this process trains
  /// alone. N >= 2: this process is one rank of N, started by a launcher
  /// that set WORLD_SIZE=N, RANK, LOCAL_RANK, MASTER_ADDR and MASTER_PORT;
  /// each rank trains on its shard (DistributedSampler) with batch_size / N
  /// samples per step, so a step still takes batch_size samples in all;
  /// gradients are averaged across ranks (DistributedDataParallel); only
  /// rank 0 evaluates and writes `out`. `device` is the ranks' policy: each
  /// takes its LOCAL_RANK's device of that kind. Default 1.
  TORCH_ARG(int64_t, nproc) = 1;
};

/// One finished epoch.
struct EpochReport {
  int64_t epoch = 0;  ///< 1-based.
  int64_t steps = 0;
  int64_t samples = 0;
  double mean_loss = 0;  ///< Mean training loss over the epoch.
  double seconds = 0;    ///< Wall time of the epoch's training loop, in seconds.
  double samples_per_second = 0;
};

/// What a progress callback receives.
struct TrainProgress {
  enum class Kind { kStarted, kStep, kEpochEnd };
  Kind kind = Kind::kStep;
  std::string device;         ///< kStarted: the chosen device ("cuda:0").
  int rank = 0;               ///< This process's rank (0 when not distributed).
  int world_size = 1;         ///< Processes training together.
  std::string device_reason;  ///< kStarted: why it was chosen.
  int64_t epoch = 0;          ///< 1-based.
  int64_t epochs = 0;
  int64_t step = 0;            ///< Steps done in this epoch.
  int64_t steps_in_epoch = 0;  ///< Steps this epoch will take.
  double loss = 0;             ///< kStep: mean loss since the last report.
  double samples_per_second = 0;
  double eta_seconds = 0;    ///< Time left in this epoch, in seconds.
  EpochReport epoch_report;  ///< kEpochEnd only.
};

/// Called on the training thread; must not throw.
using ProgressCallback = std::function<void(const TrainProgress&)>;

/// The outcome of train_classifier(). Value type.
struct TrainReport {
  std::string device;
  std::string device_reason;
  bool amp = false;
  int rank = 0;        ///< This process's rank (0 when not distributed).
  int world_size = 1;  ///< Processes that trained together (TrainOptions::nproc).
  /// With world_size > 1: how gradients travelled ("shared memory", "gloo",
  /// "nccl"; DistributedDataParallel::gradient_transport()).
  std::string gradient_transport;
  /// With the shared memory transport: seconds of the training loops each
  /// rank spent in gradient all-reduces, as the mean over the ranks: waiting
  /// for the other ranks (each step goes at its slowest rank's pace), and
  /// averaging (DistributedDataParallel::gradient_sync_time()). 0 otherwise.
  double gradient_wait_seconds = 0;
  double gradient_averaging_seconds = 0;
  /// Batches the prefetcher kept in flight (TrainOptions::prefetch, or
  /// default_prefetch() when unset); 0: collated on the training thread.
  std::size_t prefetch = 0;
  std::string resumed_from;  ///< TrainOptions::resume, if set.
  int64_t first_epoch = 1;   ///< 1-based epoch this run started at (> 1 when resumed).
  int64_t global_step = 0;   ///< Optimizer steps in total, across resumed runs.
  std::vector<EpochReport> epochs;
  double loss_start = 0;  ///< Mean loss over the first report window of this run.
  double loss_end = 0;    ///< Mean loss over the last report window of this run.
  double test_accuracy = 0;
  int64_t test_samples = 0;
  double train_seconds = 0;  ///< Training loops only, in seconds.
  /// Samples trained per second over all ranks (every epoch's samples, all
  /// ranks', over train_seconds).
  double samples_per_second = 0;
  double total_seconds = 0;  ///< Everything, data loading and evaluation included.
  std::string checkpoint;    ///< The file written, if any.
  std::string sanitizer;     ///< The device sanitizer's report, when it ran.

  /// Everything, one line per fact, epochs included.
  std::string to_text() const;
  /// The lines after the epochs: test accuracy, time, checkpoint.
  std::string summary_text() const;
  /// The same content as a JSON object.
  std::string to_json() const;
};

/// "epoch 1/3: 1875 steps, loss 0.4123, 12345 samples/s, 4.9 s".
std::string format_epoch_line(const EpochReport& epoch, int64_t epochs);
/// One progress-bar line (no newline): bar, samples/s, loss, ETA.
std::string format_progress_bar(const TrainProgress& progress, int width = 30);

/// The prefetch depth a run gets when TrainOptions::prefetch is unset. On an
/// accelerator 2: the copies of the next batches overlap the compute. On the
/// CPU the prefetcher's thread only collates batches beside the compute
/// threads, so it gets 2 when a core is left for it (`ranks_here` processes
/// of `threads_each` intra-op threads on `cores` cores) and otherwise 0: a
/// thread without a core of its own takes turns with the compute, and with
/// several ranks it delays whichever rank it lands on, which the others then
/// wait for at every gradient all-reduce.
std::size_t default_prefetch(c10::Device device, int ranks_here, int threads_each, int cores);

/// Trains the Fashion-MNIST classifier and evaluates it on the test
/// split. Throws IoError/FormatError (data, checkpoint), InvalidArgumentError
/// (options; with nproc >= 2 also when WORLD_SIZE is missing or not nproc),
/// DeviceUnavailableError (device), DeviceMismatchError (ranks disagree). Not thread-safe (sets the
/// global seed and, when `threads` > 0, LibTorch's thread count).
TrainReport train_classifier(const TrainOptions& options, const ProgressCallback& progress = {});

/// Tells glibc's malloc to keep freed memory in this process (mmap and trim
/// thresholds 1 GiB, top pad 256 MiB) instead of handing it back to the
/// kernel. A training loop frees and reallocates the same large buffers every
/// batch; given back, they are faulted in again page by page, which makes
/// evaluation several times slower (docs/train.md). Process-wide and permanent, so
/// the library never calls it on its own: `devcheck train` and the benchmarks
/// do. Returns whether malloc took the settings: false where it is not
/// glibc's (another C library, or a sanitizer's allocator).
bool keep_freed_host_memory();

/// Accuracy of `model` on the first `limit` samples of `dataset` (0: all),
/// batched and prefetched onto the model's device, under autocast when `amp`.
double evaluate_accuracy(Classifier& model, FashionMnist dataset, int64_t limit = 0,
                         bool amp = false, int64_t batch_size = 1000);

}  // namespace devcheck
