#pragma once
// The model and data both the worker ranks and the single-process reference
// in the tests train: a small MLP with a buffer, and a global batch per step
// drawn from its own seeded generator, so every process draws the same one.

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <string>
#include <utility>

namespace devcheck::testing {

struct NetImpl : torch::nn::Module {
  explicit NetImpl(int64_t hidden = 16) {
    fc1 = register_module("fc1", torch::nn::Linear(8, hidden));
    fc2 = register_module("fc2", torch::nn::Linear(hidden, 4));
    scale = register_buffer("scale", at::ones({4}));
  }
  at::Tensor forward(const at::Tensor& x) { return fc2->forward(fc1->forward(x).relu()) * scale; }
  torch::nn::Linear fc1{nullptr};
  torch::nn::Linear fc2{nullptr};
  at::Tensor scale;
};
TORCH_MODULE(Net);

// Rows per rank in one step's batch.
inline constexpr int64_t kRankBatch = 6;

// The global batch of step `step` for `world` ranks: inputs [world * 6, 8],
// targets [world * 6, 4], on the CPU.
inline std::pair<at::Tensor, at::Tensor> global_batch(int64_t step, int64_t world) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(1000 + static_cast<uint64_t>(step));
  at::Tensor x = at::randn({world * kRankBatch, 8}, g, at::TensorOptions());
  at::Tensor y = at::randn({world * kRankBatch, 4}, g, at::TensorOptions());
  return {x, y};
}

// All parameters of `net`, flattened into one CPU float64 vector.
inline at::Tensor flat_parameters(torch::nn::Module& net) {
  std::vector<at::Tensor> parts;
  for (const auto& p : net.parameters()) parts.push_back(p.detach().to(at::kCPU).flatten());
  return at::cat(parts).to(at::kDouble);
}

// The worker's SYNC argument: a "-views" suffix asks for gradients as bucket
// views (gradient_as_bucket_view); `base` is the rest, naming the sync.
struct SyncName {
  std::string base;
  bool views = false;
};

inline SyncName parse_sync_name(const std::string& sync) {
  const std::string suffix = "-views";
  const bool views = sync.size() > suffix.size() &&
                     sync.compare(sync.size() - suffix.size(), suffix.size(), suffix) == 0;
  return {views ? sync.substr(0, sync.size() - suffix.size()) : sync, views};
}

}  // namespace devcheck::testing
