// FusedAdam against torch::optim::Adam: the same updates, state and
// serialization; the fused pass where it applies, Adam's ops elsewhere.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/serialize.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "devcheck/fake_device.h"
#include "devcheck/optim.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

// Sizes with vector tails (not multiples of 8) and one split over threads.
std::vector<at::Tensor> make_params(const at::TensorOptions& options = {}) {
  at::manual_seed(7);
  std::vector<at::Tensor> params;
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{37}, {8, 9}, {300}, {3, 70001}}) {
    params.push_back(at::randn(shape).to(options).requires_grad_());
  }
  return params;
}

std::vector<at::Tensor> clone_params(const std::vector<at::Tensor>& params) {
  std::vector<at::Tensor> out;
  out.reserve(params.size());
  for (const at::Tensor& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

// The same gradients for both (one draw per step), including exact zeros.
void set_gradients(std::vector<at::Tensor>& a, std::vector<at::Tensor>& b, int step) {
  at::manual_seed(100 + step);
  for (size_t i = 0; i < a.size(); ++i) {
    at::Tensor g = at::randn(a[i].sizes()) * (0.1 * static_cast<double>(i + 1));
    g.view(-1).slice(0, 0, 5).zero_();
    a[i].mutable_grad() = g.to(a[i].options().requires_grad(false));
    b[i].mutable_grad() = g.to(b[i].options().requires_grad(false));
  }
}

void set_lr(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  }
}

double max_difference(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i].detach().cpu() - b[i].detach().cpu()).abs().max().item<double>());
  }
  return worst;
}

// Trains both for `steps` steps with a changing learning rate.
double run_both(const torch::optim::AdamOptions& options, const at::TensorOptions& where, int steps,
                int64_t* fused_count = nullptr) {
  std::vector<at::Tensor> reference = make_params(where);
  std::vector<at::Tensor> ours = clone_params(reference);
  torch::optim::Adam adam(reference, options);
  FusedAdam fused(ours, options);
  for (int step = 0; step < steps; ++step) {
    const double lr = 0.01 * (1 + std::cos(step * 0.3));
    set_lr(adam, lr);
    set_lr(fused, lr);
    set_gradients(reference, ours, step);
    adam.step();
    fused.step();
  }
  if (fused_count != nullptr) *fused_count = fused.last_fused_count();
  return max_difference(reference, ours);
}

TEST(FusedAdam, UpdatesAsTorchAdamDoes) {
  int64_t fused = 0;
  const double diff = run_both(torch::optim::AdamOptions(0.01), at::TensorOptions(), 30, &fused);
  EXPECT_LE(diff, 1e-6);
  EXPECT_EQ(fused, FusedAdam::fused_on_this_cpu() ? 4 : 0);
}

TEST(FusedAdam, WeightDecayAndAmsgradUpdateAsTorchAdamDoes) {
  EXPECT_LE(run_both(torch::optim::AdamOptions(0.01).weight_decay(0.05), {}, 30), 1e-6);
  EXPECT_LE(run_both(torch::optim::AdamOptions(0.01).amsgrad(true), {}, 30), 1e-6);
  EXPECT_LE(run_both(torch::optim::AdamOptions(0.01)
                         .betas({0.8, 0.99})
                         .eps(1e-6)
                         .amsgrad(true)
                         .weight_decay(0.01),
                     {}, 30),
            1e-6);
}

TEST(FusedAdam, TheFusedPassMovesEachParameterAsAdamWouldAfterOneStep) {
  if (!FusedAdam::fused_on_this_cpu()) GTEST_SKIP() << "no AVX2 and FMA: Adam's own ops run";
  // After one step Adam moves every element by lr * g / (|g| + eps) (the bias
  // corrections cancel at step 1); the fused pass must agree element by element.
  std::vector<at::Tensor> params = make_params();
  std::vector<at::Tensor> before = clone_params(params);
  FusedAdam fused(params, torch::optim::AdamOptions(0.01));
  std::vector<at::Tensor> unused = clone_params(params);
  set_gradients(params, unused, 0);
  fused.step();
  EXPECT_EQ(fused.last_fused_count(), 4);
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor moved = (before[i].detach() - params[i].detach()).view(-1);
    const at::Tensor g = params[i].grad().view(-1).to(at::kDouble);
    const at::Tensor expected = (0.01 * g / (g.abs() + 1e-8)).to(at::kFloat);
    EXPECT_TRUE(at::allclose(moved, expected, 1e-4, 1e-6)) << "parameter " << i;
    EXPECT_TRUE(at::all(moved.slice(0, 0, 5) == 0).item<bool>()) << "zero gradients move nothing";
  }
}

TEST(FusedAdam, GivesTheSameBitsForAnyThreadCount) {
  const int threads = at::get_num_threads();
  std::vector<at::Tensor> one = make_params();
  std::vector<at::Tensor> four = clone_params(one);
  FusedAdam a(one, torch::optim::AdamOptions(0.01).amsgrad(true));
  FusedAdam b(four, torch::optim::AdamOptions(0.01).amsgrad(true));
  for (int step = 0; step < 5; ++step) {
    set_gradients(one, four, step);
    at::set_num_threads(1);
    a.step();
    at::set_num_threads(4);
    b.step();
  }
  at::set_num_threads(threads);
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(at::equal(one[i], four[i])) << i;
}

TEST(FusedAdam, StateSavedByEitherLoadsIntoTheOther) {
  std::vector<at::Tensor> reference = make_params();
  std::vector<at::Tensor> ours = clone_params(reference);
  torch::optim::Adam adam(reference, torch::optim::AdamOptions(0.01));
  FusedAdam fused(ours, torch::optim::AdamOptions(0.01));
  for (int step = 0; step < 3; ++step) {
    set_gradients(reference, ours, step);
    adam.step();
    fused.step();
  }
  // Swap: Adam continues from FusedAdam's state and the other way round.
  std::stringstream from_fused;
  std::stringstream from_adam;
  torch::save(fused, from_fused);
  torch::save(adam, from_adam);
  torch::optim::Adam adam_next(ours, torch::optim::AdamOptions(0.01));
  FusedAdam fused_next(reference, torch::optim::AdamOptions(0.01));
  torch::load(adam_next, from_fused);
  torch::load(fused_next, from_adam);
  ASSERT_EQ(fused_next.state().size(), 4U);
  for (int step = 3; step < 8; ++step) {
    set_gradients(reference, ours, step);
    adam_next.step();
    fused_next.step();
  }
  EXPECT_EQ(fused_next.last_fused_count(), FusedAdam::fused_on_this_cpu() ? 4 : 0);
  EXPECT_LE(max_difference(reference, ours), 1e-6);
  for (const auto& item : fused_next.state()) {
    EXPECT_EQ(static_cast<const torch::optim::AdamParamState&>(*item.second).step(), 8);
  }
}

TEST(FusedAdam, TakesAdamsOwnOpsOnAnotherDeviceAndForNonContiguousParameters) {
  int64_t fused = -1;
  EXPECT_LE(run_both(torch::optim::AdamOptions(0.01), at::TensorOptions().device(fake_device()), 10,
                     &fused),
            1e-6);
  EXPECT_EQ(fused, 0);

  at::manual_seed(3);
  at::Tensor a = at::randn({9, 5}).t().requires_grad_();  // a non-contiguous leaf
  at::Tensor b = a.detach().clone().t().contiguous().t().requires_grad_();
  ASSERT_FALSE(b.is_contiguous());
  std::vector<at::Tensor> ra{a};
  std::vector<at::Tensor> rb{b};
  torch::optim::Adam adam(ra, torch::optim::AdamOptions(0.01));
  FusedAdam ours(rb, torch::optim::AdamOptions(0.01));
  for (int step = 0; step < 4; ++step) {
    set_gradients(ra, rb, step);
    adam.step();
    ours.step();
  }
  EXPECT_EQ(ours.last_fused_count(), 0);
  EXPECT_TRUE(at::allclose(a, b, 0, 1e-7));
}

TEST(FusedAdam, BumpsTheParameterVersionAsAnInPlaceUpdateDoes) {
  std::vector<at::Tensor> params = make_params();
  std::vector<at::Tensor> unused = clone_params(params);
  FusedAdam fused(params, torch::optim::AdamOptions(0.01));
  set_gradients(params, unused, 0);
  // A graph that saved the parameter before the step cannot backward after it.
  const at::Tensor y = (params[0] * params[0]).sum();
  const auto version = params[0]._version();
  fused.step();
  EXPECT_GT(params[0]._version(), version);
  try {
    y.backward();
    FAIL() << "backward through a parameter the step changed did not fail";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("modified by an inplace operation"));
  }
}

TEST(FusedAdam, RefusesSparseGradientsAsAdamDoes) {
  at::Tensor p = at::zeros({4}).requires_grad_();
  p.mutable_grad() = at::zeros({4}).to_sparse();
  std::vector<at::Tensor> params{p};
  FusedAdam fused(params, torch::optim::AdamOptions(0.01));
  try {
    fused.step();
    FAIL() << "a sparse gradient was accepted";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Adam does not support sparse gradients"));
  }
}

TEST(FusedAdam, RunsTheClosureWithGradientsOnAndReturnsItsLoss) {
  at::Tensor p = at::ones({3}).requires_grad_();
  std::vector<at::Tensor> params{p};
  FusedAdam fused(params, torch::optim::AdamOptions(0.1));
  const at::Tensor loss = fused.step([&] {
    at::Tensor l = (p * p).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(loss.item<float>(), 3.0F);
  EXPECT_TRUE(at::allclose(p.detach(), at::full({3}, 0.9), 1e-5, 1e-6));
}

}  // namespace
}  // namespace devcheck
