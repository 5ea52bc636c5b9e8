// Cost of devcheck's named checks per tensor checked, against the cheapest
// ATen op (an add of two 1-element tensors). Target: a check costs less than
// one small op per tensor.
#include <ATen/ATen.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "devcheck/check.h"
#include "ratio.h"

namespace {

void BM_AnchorSmallestAtenOp(benchmark::State& state) {
  at::Tensor a = at::ones({1});
  at::Tensor b = at::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AnchorSmallestAtenOp);

void BM_CheckSameDevice(benchmark::State& state) {
  at::Tensor x = at::ones({32, 784});
  at::Tensor w = at::ones({10, 784});
  at::Tensor b = at::ones({10});
  at::Tensor s = at::scalar_tensor(2.0);
  for (auto _ : state) {
    devcheck::check_same_device({{"input", x}, {"weight", w}, {"bias", b}, {"scale", s}}, "linear");
  }
  state.SetItemsProcessed(state.iterations() * 4);  // per tensor checked
}
BENCHMARK(BM_CheckSameDevice);

void BM_CheckOn(benchmark::State& state) {
  at::Tensor x = at::ones({32, 784});
  at::Tensor w = at::ones({10, 784});
  const c10::Device cpu(c10::kCPU);
  for (auto _ : state) devcheck::check_on(cpu, {{"input", x}, {"weight", w}}, "linear");
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_CheckOn);

void BM_AuditPerTensor(benchmark::State& state) {
  torch::nn::Sequential model;
  for (int i = 0; i < 8; ++i) {
    model->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 4, 3)));
    model->push_back(torch::nn::BatchNorm2d(4));
  }
  size_t tensors = model->parameters().size() + model->buffers().size();
  for (auto _ : state) benchmark::DoNotOptimize(devcheck::audit(*model));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(tensors));
}
BENCHMARK(BM_AuditPerTensor);

}  // namespace

int main(int argc, char** argv) {
  return devcheck::bench::run_and_print_ratios(
      argc, argv,
      {{"BM_CheckSameDevice", "BM_AnchorSmallestAtenOp", 1.0},
       {"BM_CheckOn", "BM_AnchorSmallestAtenOp", 1.0},
       {"BM_AuditPerTensor", "BM_AnchorSmallestAtenOp", 1.0}});
}
