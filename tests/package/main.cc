// Uses the installed headers and library: a scope, a check, a move.
#include <devcheck/devcheck.h>
#include <torch/torch.h>

#include <iostream>

int main() {
  devcheck::DeviceScope scope(devcheck::select_device("cpu").device);
  torch::Tensor x = torch::ones({2, 2}, devcheck::options());
  devcheck::check_on(c10::Device(c10::kCPU), {{"x", x}}, "consumer");
  try {
    torch::Tensor m = torch::empty({2}, torch::TensorOptions().device(c10::kMeta));
    devcheck::check_same_device({{"x", x}, {"m", m}}, "consumer");
  } catch (const devcheck::DeviceMismatchError& e) {
    std::cout << "consumer ok: " << DEVCHECK_VERSION << "\n";
    return 0;
  }
  return 1;
}
