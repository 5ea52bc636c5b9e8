// Uses the installed headers and libraries: a scope, a check, a move, and
// a launch of one rank (devcheck::launch, torch-free).
#include <devcheck/devcheck.h>
#include <devcheck/launch.h>
#include <torch/torch.h>

#include <iostream>
#include <sstream>

int main() {
  devcheck::LaunchOptions one_rank;
  one_rank.command = {"sh", "-c", "echo \"rank $RANK of $WORLD_SIZE\""};
  std::ostringstream out;
  std::ostringstream err;
  if (devcheck::launch(one_rank, out, err) != 0 || out.str() != "[rank0]: rank 0 of 1\n") {
    std::cout << "launch failed: " << out.str() << err.str();
    return 1;
  }
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
