// A LibTorch program written for CUDA, as LibTorch's own examples write one:
// the device comes from torch::cuda::is_available(). It does not link
// devcheck. `devcheck run --fake-cuda -- for_cuda` runs its CUDA path on a
// machine without a GPU (tests/sanitizer/run_fake_cuda_test.cc).
//
//   for_cuda clean   a few training steps; prints the device and the last loss
//   for_cuda bug     the same, with a scale tensor left on the CPU
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const bool bug = argc > 1 && std::strcmp(argv[1], "bug") == 0;
  const torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::manual_seed(0);
  torch::nn::Linear model(8, 4);
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  torch::Tensor scale = torch::ones({4}, device);
  if (bug) scale = torch::ones({4});  // MARK:stray
  float last = 0;
  for (int step = 0; step < 3; ++step) {
    const torch::Tensor x = torch::randn({16, 8}).to(device);
    const torch::Tensor y = torch::randint(0, 4, {16}).to(device);
    optimizer.zero_grad();
    const torch::Tensor logits = model(x) * scale;  // MARK:op
    const torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y);
    loss.backward();
    optimizer.step();
    last = loss.item<float>();
  }
  std::printf("device %s loss %a\n", device.str().c_str(), last);
  return 0;
}
