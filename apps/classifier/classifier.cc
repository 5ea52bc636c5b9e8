// The Fashion-MNIST classifier's model, its evaluation, and how a training report prints.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/data/dataloader.h>
#include <torch/data/samplers/sequential.h>
#include <torch/nn/functional/activation.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#if defined(__GLIBC__)  // defined by the C library's headers, so tested after them
#include <malloc.h>
#endif

#include "classifier/classifier.h"
#include "devcheck/amp.h"
#include "devcheck/move.h"
#include "devcheck/prefetch.h"

namespace devcheck {

ClassifierImpl::ClassifierImpl() {
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)));
  fc = register_module("fc", torch::nn::Linear(32 * 26 * 26, 10));
}

at::Tensor ClassifierImpl::forward(const at::Tensor& images) {
  return fc->forward(torch::nn::functional::relu(conv->forward(images)).flatten(1));
}

double evaluate_accuracy(Classifier& model, FashionMnist dataset, int64_t limit, bool amp,
                         int64_t batch_size) {
  const c10::Device device = module_device(*model);
  const auto size = static_cast<int64_t>(*dataset.size());
  const int64_t count = limit > 0 ? std::min(limit, size) : size;
  auto loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::samplers::SequentialSampler(static_cast<size_t>(count)),
      torch::data::DataLoaderOptions(static_cast<size_t>(batch_size)));
  DevicePrefetcher batches(*loader, PrefetchOptions(device));
  const bool was_training = model->is_training();
  model->eval();
  const c10::NoGradGuard no_grad;
  std::optional<AutocastScope> autocast;
  if (amp) autocast.emplace(device.type());
  at::Tensor correct = at::zeros({}, at::TensorOptions().dtype(at::kLong).device(device));
  for (auto& batch : batches) {
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum();
  }
  model->train(was_training);
  return count == 0 ? 0.0
                    : static_cast<double>(correct.item<int64_t>()) / static_cast<double>(count);
}

bool keep_freed_host_memory() {
#if defined(__GLIBC__)
  return mallopt(M_MMAP_THRESHOLD, 1 << 30) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 &&
         mallopt(M_TOP_PAD, 256 << 20) == 1;
#else
  return false;
#endif
}

namespace {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto s = static_cast<int64_t>(std::lround(seconds));
  if (s >= 3600) return fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

}  // namespace

std::string format_epoch_line(const EpochReport& e, int64_t epochs) {
  return fmt::format("epoch {}/{}: {} steps, loss {:.4f}, {:.0f} samples/s, {:.1f} s", e.epoch,
                     epochs, e.steps, e.mean_loss, e.samples_per_second, e.seconds);
}

std::string format_progress_bar(const TrainProgress& p, int width) {
  const double done =
      p.steps_in_epoch > 0
          ? std::clamp(static_cast<double>(p.step) / static_cast<double>(p.steps_in_epoch), 0.0,
                       1.0)
          : 0.0;
  const int filled = static_cast<int>(done * width);
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < width) bar += '>';
  bar.resize(static_cast<size_t>(width), ' ');
  return fmt::format("epoch {}/{} [{}] {}/{} {:.0f} samples/s loss {:.4f} ETA {}", p.epoch,
                     p.epochs, bar, p.step, p.steps_in_epoch, p.samples_per_second, p.loss,
                     format_duration(p.eta_seconds));
}

std::string TrainReport::summary_text() const {
  std::string out =
      fmt::format("test accuracy: {:.4f} ({} samples)\n", test_accuracy, test_samples);
  out += fmt::format("time: {:.1f} s ({:.1f} s training, {:.0f} samples/s", total_seconds,
                     train_seconds, samples_per_second);
  if (world_size > 1) {
    out += fmt::format(" over {} processes, gradients through {}", world_size, gradient_transport);
    if (gradient_transport == "shared memory" && train_seconds > 0) {
      out += fmt::format(
          "; per rank {:.1f}% of the time waiting for the other ranks, {:.1f}% "
          "averaging gradients",
          100 * gradient_wait_seconds / train_seconds,
          100 * gradient_averaging_seconds / train_seconds);
    }
  }
  out += ")\n";
  if (!checkpoint.empty()) out += fmt::format("checkpoint: {}\n", checkpoint);
  if (!sanitizer.empty()) {
    out += sanitizer;
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

std::string TrainReport::to_text() const {
  std::string out = fmt::format("device: {} ({})\n", device, device_reason);
  if (!resumed_from.empty()) {
    out += fmt::format("resumed from {} at epoch {}\n", resumed_from, first_epoch);
  }
  const int64_t total = first_epoch - 1 + static_cast<int64_t>(epochs.size());
  for (const auto& e : epochs) out += format_epoch_line(e, total) + "\n";
  return out + summary_text();
}

std::string TrainReport::to_json() const {
  nlohmann::json j;
  j["device"] = device;
  j["device_reason"] = device_reason;
  j["amp"] = amp;
  j["rank"] = rank;
  j["world_size"] = world_size;
  if (world_size > 1) {
    j["gradient_transport"] = gradient_transport;
    j["gradient_wait_seconds"] = gradient_wait_seconds;
    j["gradient_averaging_seconds"] = gradient_averaging_seconds;
  }
  j["prefetch"] = prefetch;
  j["resumed_from"] = resumed_from;
  j["first_epoch"] = first_epoch;
  j["global_step"] = global_step;
  j["epochs"] = nlohmann::json::array();
  for (const auto& e : epochs) {
    j["epochs"].push_back({{"epoch", e.epoch},
                           {"steps", e.steps},
                           {"samples", e.samples},
                           {"mean_loss", e.mean_loss},
                           {"seconds", e.seconds},
                           {"samples_per_second", e.samples_per_second}});
  }
  j["loss_start"] = loss_start;
  j["loss_end"] = loss_end;
  j["test_accuracy"] = test_accuracy;
  j["test_samples"] = test_samples;
  j["train_seconds"] = train_seconds;
  j["samples_per_second"] = samples_per_second;
  j["total_seconds"] = total_seconds;
  j["checkpoint"] = checkpoint;
  j["sanitizer"] = sanitizer;
  return j.dump(2);
}

}  // namespace devcheck
