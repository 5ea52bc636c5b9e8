// One optimizer step of devcheck::FusedAdam against torch::optim::Adam (the
// anchor), one intra-op thread (printed), on:
//   Classifier: the Fashion-MNIST classifier's parameters (216,426 floats),
//     whose step is what `devcheck train` and each data-parallel rank pay;
//     target: FusedAdam >= 2.5x faster (measured 2.59-3.28x: its sqrt and two
//     divisions per element, kept so the bits equal Adam's, bound it);
//   Large: 16M floats in four tensors (64 MiB of parameters, 256 MiB with
//     gradients and state: memory bound); target >= 2x.
// Gradients are fixed random tensors; every iteration is a real step. Freed
// memory stays with the process (keep_freed_host_memory, as in `devcheck
// train`), so Adam's per-step temporaries are not page-faulted in afresh each
// step: the anchor at its best.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <torch/optim/adam.h>

#include <vector>

#include "classifier/classifier.h"
#include "devcheck/optim.h"
#include "ratio.h"

namespace {

std::vector<at::Tensor> parameters(const std::vector<std::vector<int64_t>>& shapes) {
  at::manual_seed(0);
  std::vector<at::Tensor> out;
  for (const auto& shape : shapes) {
    at::Tensor p = at::randn(shape).requires_grad_();
    p.mutable_grad() = at::randn(shape) * 0.01;
    out.push_back(p);
  }
  return out;
}

// conv (32, 1, 3, 3) + bias, fc (10, 21632) + bias: the classifier's.
const std::vector<std::vector<int64_t>> kClassifier{{32, 1, 3, 3}, {32}, {10, 21632}, {10}};
const std::vector<std::vector<int64_t>> kLarge{
    {4096, 1024}, {4096, 1024}, {4096, 1024}, {4096, 1024}};

template <typename Optimizer>
void step(benchmark::State& state, const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<at::Tensor> params = parameters(shapes);
  Optimizer optimizer(params, torch::optim::AdamOptions(1e-3));
  optimizer.step();  // state allocated outside the timed loop
  for (auto _ : state) optimizer.step();
  state.SetItemsProcessed(state.iterations());
}

void BM_TorchAdam_Classifier(benchmark::State& s) { step<torch::optim::Adam>(s, kClassifier); }
void BM_FusedAdam_Classifier(benchmark::State& s) { step<devcheck::FusedAdam>(s, kClassifier); }
void BM_TorchAdam_Large(benchmark::State& s) { step<torch::optim::Adam>(s, kLarge); }
void BM_FusedAdam_Large(benchmark::State& s) { step<devcheck::FusedAdam>(s, kLarge); }
BENCHMARK(BM_TorchAdam_Classifier);
BENCHMARK(BM_FusedAdam_Classifier);
BENCHMARK(BM_TorchAdam_Large);
BENCHMARK(BM_FusedAdam_Large);

}  // namespace

int main(int argc, char** argv) {
  devcheck::keep_freed_host_memory();
  at::set_num_threads(1);
  fmt::print("optim_bench: {} intra-op thread, fused pass on this CPU: {}, {}\n",
             at::get_num_threads(), devcheck::FusedAdam::fused_on_this_cpu() ? "yes" : "no",
             devcheck::bench::load_average_text());
  return devcheck::bench::run_and_print_ratios(
      argc, argv,
      {{"BM_FusedAdam_Classifier", "BM_TorchAdam_Classifier", 2.5, /*speedup=*/true},
       {"BM_FusedAdam_Large", "BM_TorchAdam_Large", 2.0, /*speedup=*/true}});
}
