#pragma once
// The trainer's checkpoint: model weights, Adam's state, the scaler and the
// position (epoch, step), as one ordered list of named CPU tensors that
// devcheck's torch.save-compatible writer stores and Python's torch.load
// reads back as an OrderedDict:
//
//   model.<parameter>                   e.g. model.conv.weight
//   optimizer.lr                        float64 scalar
//   optimizer.state.<i>.step            int64 scalar (i: index in parameters())
//   optimizer.state.<i>.exp_avg         like the parameter
//   optimizer.state.<i>.exp_avg_sq      like the parameter
//   optimizer.state.<i>.max_exp_avg_sq  like the parameter (amsgrad only)
//   scaler.scale, scaler.growth_tracker, scaler.growth_factor,
//   scaler.backoff_factor, scaler.growth_interval   (when the scaler is on)
//   epoch                               int64 scalar: epochs completed
//   step                                int64 scalar: optimizer steps in total

#include <ATen/core/Tensor.h>
#include <torch/optim/adam.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "classifier/classifier.h"
#include "devcheck/amp.h"

namespace devcheck::detail {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// Where a checkpoint left off.
struct TrainingPosition {
  int64_t epoch = 0;  // epochs completed
  int64_t step = 0;   // optimizer steps in total
};

// The state above, every tensor a CPU copy.
NamedTensors flatten_training_state(const Classifier& model, torch::optim::Adam& optimizer,
                                    const GradScaler& scaler, TrainingPosition position);

// Loads `entries` (any device) into model, optimizer and scaler, which must
// have the checkpoint's architecture. Throws FormatError naming `path` and
// the key for a missing entry or a shape that does not match.
TrainingPosition restore_training_state(const NamedTensors& entries, const std::string& path,
                                        Classifier& model, torch::optim::Adam& optimizer,
                                        GradScaler& scaler);

// Writes `entries` to `path` with devcheck's torch.save-compatible writer
// (an OrderedDict of CPU tensors; written to a temporary file and renamed).
void save_training_checkpoint(const std::string& path, const NamedTensors& entries);

// Reads a checkpoint written by save_training_checkpoint, every tensor mapped
// onto `device`.
NamedTensors load_training_checkpoint(const std::string& path, c10::Device device);

}  // namespace devcheck::detail
