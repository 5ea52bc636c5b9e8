// The seed's classifier, written the devcheck way: the device is decided
// once, at the top; the model is moved once; batches reach the device through
// the prefetcher; the training loop has no device code in it.
//
//   classifier [--epochs N] [--max-steps N] [--data DIR] [--amp]
//   DEVCHECK_DEVICE=cuda:1 classifier      # the device comes from the environment
#include <torch/data/dataloader.h>
#include <torch/data/samplers/random.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "devcheck/amp.h"
#include "devcheck/data.h"
#include "devcheck/device.h"
#include "devcheck/error.h"
#include "devcheck/prefetch.h"
#include "devcheck/train.h"

int main(int argc, char** argv) try {
  int64_t epochs = 1;
  int64_t max_steps = 0;
  bool amp = false;
  std::string data = devcheck::kFashionMnistDir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--epochs" && i + 1 < argc) {
      epochs = std::stoll(argv[++i]);
    } else if (arg == "--max-steps" && i + 1 < argc) {
      max_steps = std::stoll(argv[++i]);
    } else if (arg == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (arg == "--amp") {
      amp = true;
    } else {
      std::cerr << "usage: classifier [--epochs N] [--max-steps N] [--data DIR] [--amp]\n";
      return 2;
    }
  }

  // 1. Decide the device once ($DEVCHECK_DEVICE, else the best one here).
  const devcheck::Selection where = devcheck::select_device(devcheck::DeviceSpec::from_env());
  const torch::Device device = where.device;
  const torch::DeviceType autocast_type = device.type();
  std::cout << "device: " << device << " (" << where.reason << ")\n";

  // 2. Build the model and move it once.
  torch::manual_seed(0);
  devcheck::Classifier model;
  model->to(device);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  devcheck::GradScaler scaler(devcheck::GradScalerOptions().enabled(amp && device.is_cuda()));

  // 3. Batches reach the device through the prefetcher: collated once, pinned,
  //    copied on a side stream while the previous batch computes.
  devcheck::FashionMnist train(devcheck::FashionMnist::Split::kTrain, data);
  const size_t n = *train.size();
  auto loader =
      torch::data::make_data_loader(std::move(train), torch::data::samplers::RandomSampler(n),
                                    torch::data::DataLoaderOptions(32));
  devcheck::DevicePrefetcher batches(*loader, devcheck::PrefetchOptions(device));

  // 4. The loop: no device code.
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    int64_t step = 0;
    double loss_sum = 0;
    for (auto& batch : batches) {
      optimizer.zero_grad();
      torch::Tensor loss;
      {
        const devcheck::AutocastScope autocast(autocast_type, amp);
        loss = torch::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
      }
      scaler.scale(loss).backward();
      scaler.step(optimizer);
      scaler.update();
      if (++step % 100 == 0) loss_sum += loss.item<double>();
      if (step == max_steps) break;
    }
    std::cout << "epoch " << epoch << ": " << step << " steps, mean sampled loss "
              << loss_sum / std::max<int64_t>(1, step / 100) << "\n";
  }

  devcheck::FashionMnist test(devcheck::FashionMnist::Split::kTest, data);
  std::cout << "test accuracy: " << devcheck::evaluate_accuracy(model, std::move(test), 0, amp)
            << "\n";
  return 0;
} catch (const devcheck::Error& e) {
  std::cerr << e.message() << "\n";
  return 2;
}
