// train_classifier(): the Fashion-MNIST classifier's training program. Every device decision is
// made once, at the top; the loop below it has no device code.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <torch/data/dataloader.h>
#include <torch/data/samplers/random.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

#include "classifier/classifier.h"
#include "classifier/state.h"
#include "devcheck/amp.h"
#include "devcheck/device.h"
#include "devcheck/distributed.h"
#include "devcheck/error.h"
#include "devcheck/optim.h"
#include "devcheck/prefetch.h"
#include "process/cores.h"

namespace devcheck {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void validate(const TrainOptions& o) {
  const auto bad = [](const std::string& what, const std::string& found) {
    return InvalidArgumentError(
        fmt::format("[devcheck] train: expected {}; received {}", what, found));
  };
  if (o.epochs() < 1) throw bad("TrainOptions::epochs >= 1", std::to_string(o.epochs()));
  if (o.batch_size() < 1)
    throw bad("TrainOptions::batch_size >= 1", std::to_string(o.batch_size()));
  if (o.max_steps() < 0) throw bad("TrainOptions::max_steps >= 0", std::to_string(o.max_steps()));
  if (o.test_samples() < 0)
    throw bad("TrainOptions::test_samples >= 0", std::to_string(o.test_samples()));
  if (o.threads() < 0) throw bad("TrainOptions::threads >= 0", std::to_string(o.threads()));
  if (o.report_every() < 1)
    throw bad("TrainOptions::report_every >= 1", std::to_string(o.report_every()));
  if (!(o.learning_rate() > 0))
    throw bad("TrainOptions::learning_rate > 0", fmt::format("{}", o.learning_rate()));
  if (o.nproc() < 1) throw bad("TrainOptions::nproc >= 1", std::to_string(o.nproc()));
  if (o.batch_size() % o.nproc() != 0) {
    throw bad(fmt::format("TrainOptions::batch_size divisible by nproc ({}): each of the {} "
                          "processes takes batch_size / nproc samples per step",
                          o.nproc(), o.nproc()),
              std::to_string(o.batch_size()));
  }
}

// The process group of a run with nproc >= 2, after checking that this
// process is one of its nproc ranks.
ProcessGroup join_ranks(const TrainOptions& o) {
  const char* world = std::getenv("WORLD_SIZE");
  if (world == nullptr || *world == '\0') {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] train: TrainOptions::nproc is {} but this process is not a rank of a "
        "distributed run (WORLD_SIZE is not set); start {} ranks with a launcher that sets "
        "RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT",
        o.nproc(), o.nproc()));
  }
  if (std::string(world) != std::to_string(o.nproc())) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] train: TrainOptions::nproc is {} but WORLD_SIZE is {}; every "
                    "rank must be started with the same nproc as the launcher's world",
                    o.nproc(), world));
  }
  const DistributedEnv env = DistributedEnv::from_env();
  return ProcessGroup(env, ProcessGroupOptions().device(o.device()));
}

// The learning rate at step `step` (0-based) of epoch `epoch` (1-based). The
// schedule runs over epochs, not global steps, so a run resumed with the same
// --epochs follows it exactly, and one resumed with more epochs continues
// from where the longer schedule is at that epoch.
double learning_rate_at(const TrainOptions& o, int64_t epoch, int64_t step,
                        int64_t steps_per_epoch) {
  if (o.lr_schedule() == LrSchedule::kConstant || steps_per_epoch <= 0) return o.learning_rate();
  const double done = static_cast<double>(epoch - 1) +
                      static_cast<double>(step) / static_cast<double>(steps_per_epoch);
  const double progress = std::clamp(done / static_cast<double>(o.epochs()), 0.0, 1.0);
  constexpr double kPi = 3.14159265358979323846;
  return o.learning_rate() * 0.5 * (1.0 + std::cos(kPi * progress));
}

void set_learning_rate(torch::optim::Adam& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  }
}

// Each epoch's shuffle depends on (seed, epoch) only: a resumed run draws the
// order the uninterrupted run drew.
uint64_t epoch_seed(uint64_t seed, int64_t epoch) {
  return seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(epoch);
}

void emit(const ProgressCallback& progress, const TrainProgress& p) {
  if (progress) progress(p);
}

}  // namespace

std::size_t default_prefetch(c10::Device device, int ranks_here, int threads_each, int cores) {
  if (device.type() != c10::kCPU) return 2;
  const int64_t busy = static_cast<int64_t>(std::max(1, ranks_here)) * std::max(1, threads_each);
  return busy < cores ? 2 : 0;
}

TrainReport train_classifier(const TrainOptions& o, const ProgressCallback& progress) {
  validate(o);
  const auto started = Clock::now();
  if (o.threads() > 0) at::set_num_threads(o.threads());

  // ---- every device decision of the program ---------------------------------
  std::optional<ProcessGroup> group;
  if (o.nproc() > 1) group.emplace(join_ranks(o));
  const Selection selection =
      group ? Selection{group->device(),
                        fmt::format("rank {} of {}, LOCAL_RANK={} ({})", group->rank(),
                                    group->world_size(), group->local_rank(), group->backend())}
            : select_device(o.device());
  const c10::Device device = selection.device;
  const c10::DeviceType autocast_type = device.type();
  const int rank = group ? group->rank() : 0;
  const int world = group ? group->world_size() : 1;
  TrainReport report;
  report.device = device.str();
  report.device_reason = selection.reason;
  report.amp = o.amp();
  report.rank = rank;
  report.world_size = world;
  report.prefetch = o.prefetch() ? *o.prefetch()
                                 : default_prefetch(device, group ? group->local_world_size() : 1,
                                                    at::get_num_threads(), detail::usable_cores());
  {
    TrainProgress p;
    p.kind = TrainProgress::Kind::kStarted;
    p.device = report.device;
    p.device_reason = report.device_reason;
    p.rank = rank;
    p.world_size = world;
    p.epochs = o.epochs();
    emit(progress, p);
  }

  torch::manual_seed(o.seed());
  FashionMnist train_set(FashionMnist::Split::kTrain, o.data_dir());
  FashionMnist test_set(FashionMnist::Split::kTest, o.data_dir());
  Classifier model;
  model->to(device);  // once
  // With several ranks: rank 0's weights everywhere, gradients averaged.
  std::unique_ptr<DistributedDataParallel> ddp;
  if (group) {
    // Gradients live in the Reducer's buckets: no copy into them or back.
    ddp = std::make_unique<DistributedDataParallel>(
        model, *group, DistributedDataParallelOptions().gradient_as_bucket_view(true));
    report.gradient_transport = ddp->gradient_transport();
  }
  // Adam with its step as one pass per parameter on the CPU (devcheck/optim.h).
  FusedAdam optimizer(model->parameters(), torch::optim::AdamOptions(o.learning_rate()));
  // Loss scaling is for float16 (CUDA); CPU autocast uses bfloat16, which has
  // float32's range and needs none. A disabled scaler is a pass-through.
  GradScaler scaler(GradScalerOptions().enabled(o.amp() && device.is_cuda()));

  detail::TrainingPosition position;
  if (!o.resume().empty()) {
    position = detail::restore_training_state(detail::load_training_checkpoint(o.resume(), device),
                                              o.resume(), model, optimizer, scaler);
    report.resumed_from = o.resume();
  }
  report.first_epoch = position.epoch + 1;

  const auto train_size = static_cast<size_t>(*train_set.size());
  const int64_t rank_batch = o.batch_size() / world;
  std::optional<DistributedSampler> shard;
  if (group) {
    shard.emplace(train_size, DistributedSamplerOptions(rank, world).seed(o.seed()));
  }
  const auto rank_samples = static_cast<int64_t>(shard ? shard->num_samples() : train_size);
  const int64_t full_epoch = (rank_samples + rank_batch - 1) / rank_batch;
  const int64_t steps_per_epoch =
      o.max_steps() > 0 ? std::min(o.max_steps(), full_epoch) : full_epoch;
  // The mean over all ranks of a loss sum kept on the device.
  const auto mean_over_ranks = [&](const at::Tensor& sum) {
    if (!group) return sum.item<double>();
    const at::Tensor copy = sum.clone();
    group->all_reduce_sum(copy);
    return copy.item<double>() / static_cast<double>(world);
  };

  // A progress event of this run at `step` of `epoch`.
  const auto progress_at = [&](TrainProgress::Kind kind, int64_t epoch, int64_t step) {
    TrainProgress p;
    p.kind = kind;
    p.rank = rank;
    p.world_size = world;
    p.epoch = epoch;
    p.epochs = o.epochs();
    p.step = step;
    p.steps_in_epoch = steps_per_epoch;
    return p;
  };

  // ---- the loop: no device code below this line -----------------------------
  bool have_start_loss = false;
  const auto train_epoch = [&](auto& batches, int64_t epoch) {
    model->train();
    const auto epoch_started = Clock::now();
    at::Tensor epoch_loss;  // sums stay on the device: no sync per step
    at::Tensor window_loss;
    int64_t window_steps = 0;
    int64_t steps = 0;
    int64_t samples = 0;
    for (auto& batch : batches) {
      set_learning_rate(optimizer, learning_rate_at(o, epoch, steps, steps_per_epoch));
      if (ddp) {
        ddp->zero_grad();  // in place: the gradients are views into the buckets
      } else {
        optimizer.zero_grad();
      }
      at::Tensor loss;
      {
        const AutocastScope autocast(autocast_type, o.amp());
        const auto forward = [&] { return model->forward(batch.data); };
        loss = torch::nn::functional::cross_entropy(ddp ? ddp->forward(forward) : forward(),
                                                    batch.target);
      }
      scaler.scale(loss).backward();
      scaler.step(optimizer);
      scaler.update();

      const at::Tensor detached = loss.detach().to(at::kFloat);
      epoch_loss = epoch_loss.defined() ? epoch_loss + detached : detached;
      window_loss = window_loss.defined() ? window_loss + detached : detached;
      ++window_steps;
      ++steps;
      ++position.step;
      samples += batch.target.size(0) * world;
      const bool last = steps == steps_per_epoch;
      if (window_steps == o.report_every() || last) {
        const double mean = mean_over_ranks(window_loss) / static_cast<double>(window_steps);
        if (!have_start_loss) report.loss_start = mean, have_start_loss = true;
        report.loss_end = mean;
        const double elapsed = seconds_since(epoch_started);
        TrainProgress p = progress_at(TrainProgress::Kind::kStep, epoch, steps);
        p.loss = mean;
        p.samples_per_second = elapsed > 0 ? static_cast<double>(samples) / elapsed : 0;
        p.eta_seconds =
            elapsed / static_cast<double>(steps) * static_cast<double>(steps_per_epoch - steps);
        emit(progress, p);
        window_loss = at::Tensor();
        window_steps = 0;
      }
      if (last) break;
    }
    batches.stop();  // an epoch cut short by --max-steps drops its prefetched batches

    EpochReport e;
    e.epoch = epoch;
    e.steps = steps;
    e.samples = samples;
    e.seconds = seconds_since(epoch_started);
    e.mean_loss = steps > 0 ? mean_over_ranks(epoch_loss) / static_cast<double>(steps) : 0.0;
    e.samples_per_second = e.seconds > 0 ? static_cast<double>(samples) / e.seconds : 0.0;
    report.train_seconds += e.seconds;
    report.epochs.push_back(e);
    position.epoch = epoch;
    if (!o.out().empty() && rank == 0) {
      detail::save_training_checkpoint(
          o.out(), detail::flatten_training_state(model, optimizer, scaler, position));
      report.checkpoint = o.out();
    }
    TrainProgress p = progress_at(TrainProgress::Kind::kEpochEnd, epoch, steps);
    p.epoch_report = e;
    emit(progress, p);
  };

  const torch::data::DataLoaderOptions loader_options(static_cast<size_t>(rank_batch));
  if (shard) {
    for (int64_t epoch = report.first_epoch; epoch <= o.epochs(); ++epoch) {
      shard->set_epoch(epoch);  // this epoch's permutation, the same on every rank
      auto loader = torch::data::make_data_loader(train_set, *shard, loader_options);
      DevicePrefetcher batches(*loader, PrefetchOptions(device).in_flight(report.prefetch));
      train_epoch(batches, epoch);
    }
  } else {
    auto loader = torch::data::make_data_loader(
        std::move(train_set), torch::data::samplers::RandomSampler(train_size), loader_options);
    DevicePrefetcher batches(*loader, PrefetchOptions(device).in_flight(report.prefetch));
    for (int64_t epoch = report.first_epoch; epoch <= o.epochs(); ++epoch) {
      torch::manual_seed(epoch_seed(o.seed(), epoch));  // the sampler draws this epoch's order
      train_epoch(batches, epoch);
    }
  }
  // A resumed run that has nothing left to train still writes --out.
  if (!o.out().empty() && report.checkpoint.empty() && rank == 0) {
    detail::save_training_checkpoint(
        o.out(), detail::flatten_training_state(model, optimizer, scaler, position));
    report.checkpoint = o.out();
  }
  report.global_step = position.step;
  int64_t trained = 0;
  for (const EpochReport& e : report.epochs) trained += e.samples;
  report.samples_per_second =
      report.train_seconds > 0 ? static_cast<double>(trained) / report.train_seconds : 0.0;
  if (ddp && ddp->gradient_transport() == "shared memory") {
    const GradientSyncTime sync = ddp->gradient_sync_time();
    const at::Tensor seconds =
        at::tensor({sync.waiting_seconds, sync.averaging_seconds}, at::kDouble);
    group->all_reduce_sum(seconds);  // every rank: the mean over ranks
    report.gradient_wait_seconds = seconds[0].item<double>() / static_cast<double>(world);
    report.gradient_averaging_seconds = seconds[1].item<double>() / static_cast<double>(world);
  }
  if (rank != 0) {  // rank 0 evaluates the model every rank holds
    report.total_seconds = seconds_since(started);
    return report;
  }

  report.test_samples =
      o.test_samples() > 0
          ? std::min<int64_t>(o.test_samples(), static_cast<int64_t>(*test_set.size()))
          : static_cast<int64_t>(*test_set.size());
  report.test_accuracy = evaluate_accuracy(model, std::move(test_set), o.test_samples(), o.amp());
  report.total_seconds = seconds_since(started);
  return report;
}

}  // namespace devcheck
