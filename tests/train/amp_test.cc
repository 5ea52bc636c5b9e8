// AutocastScope and GradScaler, with PyTorch's semantics.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <limits>

#include "devcheck/amp.h"
#include "devcheck/device.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

TEST(AmpAutocastScope, EnablesCpuBFloat16AndRestores) {
  ASSERT_FALSE(autocast_enabled(c10::kCPU));
  {
    const AutocastScope scope(c10::kCPU);
    EXPECT_TRUE(autocast_enabled(c10::kCPU));
    EXPECT_EQ(autocast_dtype(c10::kCPU), c10::kBFloat16);
    const at::Tensor a = at::randn({4, 4});
    EXPECT_EQ(at::mm(a, a).scalar_type(), c10::kBFloat16);
  }
  EXPECT_FALSE(autocast_enabled(c10::kCPU));
  EXPECT_EQ(at::mm(at::randn({2, 2}), at::randn({2, 2})).scalar_type(), c10::kFloat);
}

TEST(AmpAutocastScope, NestedScopesRestoreInReverseOrder) {
  {
    const AutocastScope outer(c10::kCPU, c10::kBFloat16, true);
    EXPECT_TRUE(autocast_enabled(c10::kCPU));
    {
      const AutocastScope inner(c10::kCPU, c10::kBFloat16, false);
      EXPECT_FALSE(autocast_enabled(c10::kCPU));
      EXPECT_EQ(at::mm(at::randn({2, 2}), at::randn({2, 2})).scalar_type(), c10::kFloat);
      {
        const AutocastScope innermost(c10::kCPU);
        EXPECT_TRUE(autocast_enabled(c10::kCPU));
      }
      EXPECT_FALSE(autocast_enabled(c10::kCPU));
    }
    EXPECT_TRUE(autocast_enabled(c10::kCPU));
    EXPECT_EQ(at::mm(at::randn({2, 2}), at::randn({2, 2})).scalar_type(), c10::kBFloat16);
  }
  EXPECT_FALSE(autocast_enabled(c10::kCPU));
}

TEST(AmpAutocastScope, CpuScopeLeavesCudaStateAlone) {
  const bool cuda_before = autocast_enabled(c10::kCUDA);
  {
    const AutocastScope scope(c10::kCPU);
    EXPECT_EQ(autocast_enabled(c10::kCUDA), cuda_before);
  }
  EXPECT_EQ(autocast_enabled(c10::kCUDA), cuda_before);
}

TEST(AmpAutocastScope, RejectsFloat16OnCpuNamingBoth) {
  try {
    const AutocastScope scope(c10::kCPU, c10::kHalf);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("cpu with float16"));
    EXPECT_THAT(e.message(), HasSubstr("expected cpu with bfloat16"));
  }
  EXPECT_FALSE(autocast_enabled(c10::kCPU));
}

// LibTorch 1.13's autocast knows only the CPU and CUDA: on the fake device a
// disabled scope is a no-op (what `autocast(device, enabled=amp)` code needs)
// and an enabled one is refused by name.
TEST(AmpAutocastScope, OtherDevicesMayOnlyBeDisabledAndAreNamedWhenEnabled) {
  const c10::DeviceType fake = fake_device().type();
  { const AutocastScope off(fake, /*enabled=*/false); }
  EXPECT_FALSE(autocast_enabled(c10::kCPU));
  try {
    const AutocastScope on(fake);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(),
                HasSubstr("received " + c10::DeviceTypeName(fake, /*lower_case=*/true) + " with"));
    EXPECT_THAT(e.message(), HasSubstr("expected cpu with bfloat16, or cuda with float16"));
  }
  EXPECT_FALSE(autocast_enabled(c10::kCPU));
}

TEST(AmpAutocastScope, CudaFloat16_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  {
    const AutocastScope scope(c10::kCUDA);
    EXPECT_TRUE(autocast_enabled(c10::kCUDA));
    const at::Tensor a = at::randn({8, 8}, at::TensorOptions().device(c10::kCUDA));
    EXPECT_EQ(at::mm(a, a).scalar_type(), c10::kHalf);
    {
      const AutocastScope bf16(c10::kCUDA, c10::kBFloat16);
      EXPECT_EQ(at::mm(a, a).scalar_type(), c10::kBFloat16);
    }
    EXPECT_EQ(at::mm(a, a).scalar_type(), c10::kHalf);
  }
  EXPECT_FALSE(autocast_enabled(c10::kCUDA));
}

// One parameter w (value 1) whose gradient is whatever the test makes the loss say.
struct Toy {
  explicit Toy(c10::Device device = c10::kCPU)
      : w(at::ones({3}, at::TensorOptions().device(device)).requires_grad_()),
        optimizer(std::vector<at::Tensor>{w}, torch::optim::SGDOptions(0.1)) {}
  // loss = sum(w * g): d loss / d w = g.
  at::Tensor loss(const at::Tensor& g) { return (w * g.to(w.device())).sum(); }
  at::Tensor w;
  torch::optim::SGD optimizer;
};

TEST(GradScaler, DefaultsArePyTorchs) {
  const GradScaler scaler;
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  EXPECT_EQ(scaler.options().growth_factor(), 2.0);
  EXPECT_EQ(scaler.options().backoff_factor(), 0.5);
  EXPECT_EQ(scaler.options().growth_interval(), 2000);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, CleanStepUnscalesAndSteps) {
  Toy toy;
  GradScaler scaler;
  const at::Tensor scaled = scaler.scale(toy.loss(at::full({3}, 2.0)));
  EXPECT_DOUBLE_EQ(scaled.item<double>(), 6.0 * 65536.0);
  scaled.backward();
  EXPECT_DOUBLE_EQ(toy.w.grad()[0].item<double>(), 2.0 * 65536.0);
  EXPECT_TRUE(scaler.step(toy.optimizer));
  EXPECT_DOUBLE_EQ(toy.w.grad()[0].item<double>(), 2.0);  // unscaled
  EXPECT_NEAR(toy.w[0].item<double>(), 1.0 - 0.1 * 2.0, 1e-6);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 1);
}

TEST(GradScaler, InjectedInfSkipsTheStepAndHalvesTheScale) {
  for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    Toy toy;
    GradScaler scaler;
    scaler.scale(toy.loss(at::full({3}, 1.0))).backward();
    toy.w.mutable_grad()[1].fill_(bad);  // one poisoned element
    EXPECT_FALSE(scaler.step(toy.optimizer));
    EXPECT_TRUE(at::equal(toy.w.detach(), at::ones({3})));  // no step taken
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 32768.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
  }
}

TEST(GradScaler, TwoThousandCleanStepsDoubleTheScale) {
  Toy toy;
  GradScaler scaler;
  for (int i = 0; i < 1999; ++i) {
    toy.optimizer.zero_grad();
    scaler.scale(toy.loss(at::full({3}, 1e-3))).backward();
    ASSERT_TRUE(scaler.step(toy.optimizer));
    scaler.update();
  }
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 1999);
  toy.optimizer.zero_grad();
  scaler.scale(toy.loss(at::full({3}, 1e-3))).backward();
  scaler.step(toy.optimizer);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 131072.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, InfResetsTheGrowthCount) {
  Toy toy;
  GradScaler scaler(GradScalerOptions().growth_interval(3));
  const auto step = [&](double g) {
    toy.optimizer.zero_grad();
    scaler.scale(toy.loss(at::full({3}, g))).backward();
    scaler.step(toy.optimizer);
    scaler.update();
  };
  step(1);
  step(1);
  step(std::numeric_limits<double>::infinity());
  EXPECT_EQ(scaler.get_scale(), 32768.0);
  step(1);
  step(1);
  EXPECT_EQ(scaler.get_scale(), 32768.0);
  step(1);
  EXPECT_EQ(scaler.get_scale(), 65536.0);
}

TEST(GradScaler, StateRoundTrips) {
  Toy toy;
  GradScaler a(GradScalerOptions().init_scale(1024).growth_interval(10));
  for (int i = 0; i < 3; ++i) {
    toy.optimizer.zero_grad();
    a.scale(toy.loss(at::full({3}, 1.0))).backward();
    a.step(toy.optimizer);
    a.update();
  }
  const GradScalerState saved = a.state_dict();
  EXPECT_EQ(saved.scale, 1024.0);
  EXPECT_EQ(saved.growth_tracker, 3);
  EXPECT_EQ(saved.growth_interval, 10);

  GradScaler b;  // different defaults, overwritten by the load
  b.load_state_dict(saved);
  EXPECT_EQ(b.state_dict(), saved);
  // And it continues where `a` left off: 7 more clean steps double the scale.
  for (int i = 0; i < 7; ++i) {
    toy.optimizer.zero_grad();
    b.scale(toy.loss(at::full({3}, 1.0))).backward();
    b.step(toy.optimizer);
    b.update();
  }
  EXPECT_EQ(b.get_scale(), 2048.0);
}

TEST(GradScaler, MisuseThrowsPythonsMessages) {
  Toy toy;
  GradScaler scaler;
  try {
    scaler.unscale_(toy.optimizer);
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("did not use scaler.scale(loss or outputs)"));
  }
  scaler.scale(toy.loss(at::ones({3}))).backward();
  scaler.unscale_(toy.optimizer);
  try {
    scaler.unscale_(toy.optimizer);
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("unscale_() has already been called"));
  }
  scaler.step(toy.optimizer);
  try {
    scaler.step(toy.optimizer);
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("step() has already been called"));
  }
  scaler.update();
  // After update() the cycle starts again.
  toy.optimizer.zero_grad();
  scaler.scale(toy.loss(at::ones({3}))).backward();
  EXPECT_TRUE(scaler.step(toy.optimizer));
}

TEST(GradScaler, RejectsFloat16Gradients) {
  at::Tensor w = at::ones({2}, at::TensorOptions().dtype(at::kHalf)).requires_grad_();
  torch::optim::SGD optimizer(std::vector<at::Tensor>{w}, torch::optim::SGDOptions(0.1));
  w.mutable_grad() = at::ones({2}, at::TensorOptions().dtype(at::kHalf));
  GradScaler scaler;
  scaler.scale(at::ones({1}));
  try {
    scaler.unscale_(optimizer);
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("Attempting to unscale FP16 gradients."));
  }
}

TEST(GradScaler, DisabledIsAPassThrough) {
  Toy toy;
  GradScaler scaler(GradScalerOptions().enabled(false));
  const at::Tensor loss = toy.loss(at::full({3}, 2.0));
  const at::Tensor scaled = scaler.scale(loss);
  EXPECT_TRUE(scaled.is_same(loss));
  scaled.backward();
  EXPECT_TRUE(scaler.step(toy.optimizer));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 1.0);
}

TEST(GradScaler, RejectsBadOptions) {
  EXPECT_THROW(GradScaler(GradScalerOptions().growth_interval(0)), InvalidArgumentError);
  EXPECT_THROW(GradScaler(GradScalerOptions().backoff_factor(1.5)), InvalidArgumentError);
  GradScaler scaler;
  GradScalerState bad;
  bad.scale = -1;
  EXPECT_THROW(scaler.load_state_dict(bad), InvalidArgumentError);
}

// The tensor-op path on the fake device: the CPU's results step for step.
TEST(GradScaler, OnTheFakeDeviceStepsAndSkipsAsOnTheCpu) {
  Toy cpu;
  Toy on_device(fake_device(1));
  GradScaler on_cpu(GradScalerOptions().growth_interval(2));
  GradScaler on_fake(GradScalerOptions().growth_interval(2));
  for (int i = 0; i < 4; ++i) {
    const double second = i == 1 ? std::numeric_limits<double>::infinity() : 2.0;
    const at::Tensor g = at::tensor({1.0, second, 3.0});
    cpu.optimizer.zero_grad();
    on_device.optimizer.zero_grad();
    on_cpu.scale(cpu.loss(g)).backward();
    const at::Tensor scaled = on_fake.scale(on_device.loss(g));
    EXPECT_EQ(scaled.device(), fake_device(1));
    scaled.backward();
    ASSERT_EQ(on_device.w.grad().device(), fake_device(1));
    const bool stepped = on_cpu.step(cpu.optimizer);
    EXPECT_EQ(stepped, i != 1);
    EXPECT_EQ(on_fake.step(on_device.optimizer), stepped) << "step " << i;
    on_cpu.update();
    on_fake.update();
    EXPECT_EQ(on_fake.state_dict(), on_cpu.state_dict()) << "step " << i;
    EXPECT_TRUE(at::equal(on_device.w.detach().cpu(), cpu.w.detach())) << "step " << i;
  }
  // clean, inf (halved), clean, clean (grown back after growth_interval 2)
  EXPECT_EQ(on_fake.get_scale(), 65536.0);
  EXPECT_EQ(on_fake.growth_tracker(), 0);
}

// A model split over fake:0 and fake:1: each device's gradients are unscaled
// where they are, and an inf on either device skips the whole step.
TEST(GradScaler, GradientsOnTwoDevicesAreUnscaledWhereTheyAreAndCheckedTogether) {
  const c10::Device first = fake_device(0);
  const c10::Device second = fake_device(1);
  const at::Tensor a = at::ones({2}, at::TensorOptions().device(first)).requires_grad_();
  const at::Tensor b = at::ones({2}, at::TensorOptions().device(second)).requires_grad_();
  torch::optim::SGD optimizer(std::vector<at::Tensor>{a, b}, torch::optim::SGDOptions(0.5));
  GradScaler scaler;
  // d loss / d a = 2, d loss / d b = gb
  const auto loss = [&](double gb) { return (a * 2).sum() + (b * gb).sum().to(first); };

  scaler.scale(loss(4.0)).backward();
  ASSERT_EQ(a.grad().device(), first);
  ASSERT_EQ(b.grad().device(), second);
  EXPECT_TRUE(scaler.step(optimizer));
  EXPECT_TRUE(at::equal(a.grad().cpu(), at::full({2}, 2.0F)));  // unscaled on fake:0
  EXPECT_TRUE(at::equal(b.grad().cpu(), at::full({2}, 4.0F)));  // and on fake:1
  EXPECT_TRUE(at::equal(a.detach().cpu(), at::zeros({2})));
  EXPECT_TRUE(at::equal(b.detach().cpu(), at::full({2}, -1.0F)));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 65536.0);

  optimizer.zero_grad();
  scaler.scale(loss(std::numeric_limits<double>::infinity())).backward();
  EXPECT_FALSE(scaler.step(optimizer));                      // the inf is on fake:1 only
  EXPECT_TRUE(at::equal(a.detach().cpu(), at::zeros({2})));  // fake:0 did not step either
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32768.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, FusedKernelsMatchTheTensorOpPath_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  for (double poison : {0.0, std::numeric_limits<double>::infinity()}) {
    Toy cpu;
    Toy cuda(c10::Device(c10::kCUDA));
    GradScaler on_cpu(GradScalerOptions().growth_interval(2));
    GradScaler on_cuda(GradScalerOptions().growth_interval(2));
    for (int i = 0; i < 3; ++i) {
      const at::Tensor g =
          at::tensor({1.0, poison * (i == 1 ? 1 : 0), 3.0}).nan_to_num(0, INFINITY);
      cpu.optimizer.zero_grad();
      cuda.optimizer.zero_grad();
      on_cpu.scale(cpu.loss(g)).backward();
      on_cuda.scale(cuda.loss(g)).backward();
      EXPECT_EQ(on_cpu.step(cpu.optimizer), on_cuda.step(cuda.optimizer));
      on_cpu.update();
      on_cuda.update();
      EXPECT_EQ(on_cpu.state_dict(), on_cuda.state_dict()) << "step " << i;
      EXPECT_TRUE(at::allclose(cpu.w.detach(), cuda.w.detach().cpu()));
    }
  }
}

}  // namespace
}  // namespace devcheck
