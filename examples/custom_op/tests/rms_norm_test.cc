// devcheck::rms_norm against a reference made of ATen ops (forward and
// backward, shapes with 0 rows and odd sizes), finite differences in
// float64, meta, the fake device, mixed devices, check_op, real Python.

#include "rms_norm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "devcheck/check_op.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "support/support.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr double kEps = 1e-6;

// The same computation composed of ATen ops, in float64.
torch::Tensor reference(const torch::Tensor& x, const torch::Tensor& w, double eps = kEps) {
  const torch::Tensor xd = x.to(torch::kDouble);
  return xd * torch::rsqrt(xd.pow(2).mean(-1, /*keepdim=*/true) + eps) * w.to(torch::kDouble);
}

const std::vector<std::vector<int64_t>> kShapes = {{0, 8},     {1, 1},   {3, 7},    {5, 33},
                                                   {2, 3, 17}, {4, 129}, {64, 1024}};

std::string shape_name(const std::vector<int64_t>& shape) {
  return c10::str(c10::IntArrayRef(shape));
}

struct Grads {
  torch::Tensor y, gx, gw;
};

// rms_norm or the reference, with gradients for a fixed uneven grad_y.
template <typename F>
Grads run(F&& f, const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& grad_y) {
  const torch::Tensor xa = x.detach().requires_grad_(true);
  const torch::Tensor wa = w.detach().requires_grad_(true);
  torch::Tensor y = f(xa, wa);
  y.backward(grad_y.to(y.scalar_type()));
  return {y.detach(), xa.grad(), wa.grad()};
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_TRUE(torch::allclose(got.to(torch::kDouble), want.to(torch::kDouble), tol, tol))
      << what << ": largest difference "
      << (got.to(torch::kDouble) - want.to(torch::kDouble)).abs().max().item<double>();
}

void expect_matches_reference(torch::ScalarType dtype, double tol) {
  torch::manual_seed(0);
  for (const auto& shape : kShapes) {
    const torch::Tensor x = torch::randn(shape, torch::kDouble).to(dtype);
    const torch::Tensor w = torch::randn({shape.back()}, torch::kDouble).to(dtype);
    const torch::Tensor g = torch::randn(shape, torch::kDouble);
    const Grads got = run([](auto& a, auto& b) { return devcheck::rms_norm(a, b, kEps); }, x, w, g);
    const Grads want = run([](auto& a, auto& b) { return reference(a, b); }, x.to(torch::kDouble),
                           w.to(torch::kDouble), g);
    const std::string name = shape_name(shape) + " " + c10::toString(dtype);
    EXPECT_EQ(got.y.scalar_type(), dtype);
    expect_close(got.y, want.y, tol, "y " + name);
    expect_close(got.gx, want.gx, tol, "grad x " + name);
    expect_close(got.gw, want.gw, tol * 8, "grad weight " + name);
  }
}

TEST(RmsNorm, Float32MatchesTheComposedReferenceForwardAndBackward) {
  expect_matches_reference(torch::kFloat, 1e-5);
}

TEST(RmsNorm, Float64MatchesTheComposedReferenceForwardAndBackward) {
  expect_matches_reference(torch::kDouble, 1e-12);
}

TEST(RmsNorm, BFloat16MatchesTheComposedReferenceForwardAndBackward) {
  expect_matches_reference(torch::kBFloat16, 2e-2);
}

TEST(RmsNorm, NonContiguousInputsGiveTheContiguousInputsResult) {
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({9, 6}).t();  // [6, 9], strides (1, 6)
  const torch::Tensor w = torch::randn({18}).slice(0, 0, 18, 2);
  const torch::Tensor g = torch::randn({6, 9});
  const auto f = [](auto& a, auto& b) { return devcheck::rms_norm(a, b, kEps); };
  const Grads strided = run(f, x, w, g);
  const Grads dense = run(f, x.contiguous(), w.contiguous(), g);
  EXPECT_TRUE(strided.y.is_contiguous());
  EXPECT_TRUE(torch::equal(strided.y, dense.y));
  EXPECT_TRUE(torch::equal(strided.gx, dense.gx));
  EXPECT_TRUE(torch::equal(strided.gw, dense.gw));
}

// Central differences in float64 against the analytic backward, for every
// element of x and weight (torch.autograd.gradcheck's comparison).
TEST(RmsNorm, AnalyticGradientsMatchFiniteDifferencesInFloat64) {
  torch::manual_seed(2);
  const torch::Tensor x = torch::randn({3, 5}, torch::kDouble);
  const torch::Tensor w = torch::randn({5}, torch::kDouble);
  const torch::Tensor g = torch::randn({3, 5}, torch::kDouble);
  const Grads analytic =
      run([](auto& a, auto& b) { return devcheck::rms_norm(a, b, 1e-3); }, x, w, g);
  const double h = 1e-6;
  const auto loss = [&](const torch::Tensor& xx, const torch::Tensor& ww) {
    torch::NoGradGuard no_grad;
    return (devcheck::rms_norm(xx, ww, 1e-3) * g).sum().item<double>();
  };
  for (const bool of_x : {true, false}) {
    const torch::Tensor& base = of_x ? x : w;
    const torch::Tensor& grad = of_x ? analytic.gx : analytic.gw;
    for (int64_t i = 0; i < base.numel(); ++i) {
      torch::Tensor plus = base.clone(), minus = base.clone();
      plus.view(-1)[i] += h;
      minus.view(-1)[i] -= h;
      const double numeric = of_x ? (loss(plus, w) - loss(minus, w)) / (2 * h)
                                  : (loss(x, plus) - loss(x, minus)) / (2 * h);
      EXPECT_NEAR(grad.view(-1)[i].item<double>(), numeric, 1e-6)
          << (of_x ? "x" : "weight") << " element " << i;
    }
  }
}

TEST(RmsNorm, MetaInputsGiveMetaOutputsWithShapesAndDtypes) {
  const auto meta = torch::TensorOptions().device(torch::kMeta);
  const torch::Tensor y = devcheck::rms_norm(torch::empty({2, 3, 17}, meta.dtype(torch::kBFloat16)),
                                             torch::empty({17}, meta.dtype(torch::kBFloat16)));
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes(), c10::IntArrayRef({2, 3, 17}));
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  const auto forward = c10::Dispatcher::singleton()
                           .findSchemaOrThrow("devcheck::rms_norm_forward", "")
                           .typed<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&,
                                                                     const at::Tensor&, double)>();
  const auto [y2, rstd] = forward.call(torch::empty({2, 3, 17}, meta.dtype(torch::kBFloat16)),
                                       torch::empty({17}, meta.dtype(torch::kBFloat16)), kEps);
  EXPECT_TRUE(rstd.is_meta());
  EXPECT_EQ(rstd.sizes(), c10::IntArrayRef({2, 3}));
  EXPECT_EQ(rstd.scalar_type(), torch::kFloat);
}

TEST(RmsNorm, FakeDeviceResultsEqualTheCpusAndStayOnTheInputsDevice) {
  torch::manual_seed(3);
  const torch::Tensor x = torch::randn({5, 33});
  const torch::Tensor w = torch::randn({33});
  const torch::Tensor g = torch::randn({5, 33});
  const auto f = [](auto& a, auto& b) { return devcheck::rms_norm(a, b, kEps); };
  const Grads cpu = run(f, x, w, g);
  const c10::Device fake1 = devcheck::fake_device(1);
  const Grads fake = run(f, x.to(fake1), w.to(fake1), g.to(fake1));
  EXPECT_EQ(fake.y.device(), fake1);
  EXPECT_EQ(fake.gx.device(), fake1);
  EXPECT_EQ(fake.gw.device(), fake1);
  EXPECT_TRUE(torch::equal(fake.y.cpu(), cpu.y));
  EXPECT_TRUE(torch::equal(fake.gx.cpu(), cpu.gx));
  EXPECT_TRUE(torch::equal(fake.gw.cpu(), cpu.gw));
}

std::string mismatch_of(const torch::Tensor& x, const torch::Tensor& w) {
  try {
    devcheck::rms_norm(x, w);
  } catch (const devcheck::DeviceMismatchError& e) {
    return e.message();
  }
  return "(no DeviceMismatchError)";
}

TEST(RmsNorm, CpuWithFakeIsRefusedNamingOpArgumentsAndBothDevices) {
  const std::string fake0 = devcheck::fake_device(0).str();
  EXPECT_THAT(mismatch_of(torch::ones({2, 3}), torch::ones({3}).to(devcheck::fake_device(0))),
              AllOf(HasSubstr("[devcheck] devcheck::rms_norm:"),
                    HasSubstr("argument 'weight' is on " + fake0),
                    HasSubstr("argument 'x' is on cpu"), HasSubstr("'x' ([2, 3] float32 on cpu)")));
}

TEST(RmsNorm, Fake0WithFake1IsRefusedNamingBothDevices) {
  EXPECT_THAT(mismatch_of(torch::ones({2, 3}).to(devcheck::fake_device(1)),
                          torch::ones({3}).to(devcheck::fake_device(0))),
              AllOf(HasSubstr("argument 'weight' is on " + devcheck::fake_device(0).str()),
                    HasSubstr("argument 'x' is on " + devcheck::fake_device(1).str())));
}

TEST(RmsNorm, CpuWithMetaIsRefusedWithoutAutogradToo) {
  const c10::InferenceMode inference;  // the op's kernel below autograd
  EXPECT_THAT(mismatch_of(torch::ones({2, 3}), torch::ones({3}, torch::kMeta)),
              AllOf(HasSubstr("devcheck::rms_norm"), HasSubstr("argument 'weight' is on meta"),
                    HasSubstr("argument 'x' is on cpu")));
}

TEST(RmsNorm, WrongWeightShapeNamesTheExpectedShape) {
  try {
    devcheck::rms_norm(torch::ones({2, 3}), torch::ones({4}));
    FAIL() << "no error";
  } catch (const devcheck::InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("expected weight of shape [3] (x's last dimension; x is "
                                       "[2, 3] Float), got [4] Float"));
  }
}

TEST(RmsNorm, ZeroDimInputAndNegativeEpsAreRefused) {
  EXPECT_THROW(devcheck::rms_norm(torch::ones({}), torch::ones({1})),
               devcheck::InvalidArgumentError);
  EXPECT_THROW(devcheck::rms_norm(torch::ones({2}), torch::ones({2}), -1.0),
               devcheck::InvalidArgumentError);
}

TEST(RmsNorm, PassesCheckOpOnEveryDevice) {
  torch::manual_seed(4);
  std::vector<devcheck::testing::OpSample> samples = {
      {torch::randn({4, 8}), torch::randn({8}), 1e-6},
      {torch::randn({2, 3, 33}), torch::randn({33}), 1e-5},
      {torch::randn({9, 6}).t(), torch::randn({9})},  // non-contiguous, default eps
      {torch::randn({0, 5}), torch::randn({5}), 1e-6},
      {torch::randn({3, 16}, torch::kDouble), torch::randn({16}, torch::kDouble), 1e-6}};
  const auto report = devcheck::testing::check_op("devcheck::rms_norm", samples);
  EXPECT_TRUE(report.ok()) << report.to_string();
  EXPECT_GT(report.checks_passed, 100) << report.to_string();
}

TEST(RmsNorm, RealPythonLoadsTheLibraryAndMatchesTheReference) {
  const auto result = devcheck::testing::run_process(
      {DEVCHECK_PYTHON, std::string(DEVCHECK_CUSTOM_OP_DIR) + "/tests/rms_norm_check.py",
       DEVCHECK_CUSTOM_OP_LIBRARY});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, AllOf(HasSubstr("PASS forward cpu float32 [0, 8]"),
                                   HasSubstr("PASS grad weight cpu bfloat16 [16, 1024]"),
                                   HasSubstr("PASS mixed devices refused by name")));
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("FAIL")));
}

TEST(RmsNorm, CudaMatchesTheReference_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  torch::manual_seed(5);
  for (const auto dtype : {torch::kFloat, torch::kHalf, torch::kBFloat16}) {
    const double tol = dtype == torch::kFloat ? 1e-5 : 2e-2;
    const torch::Tensor x = torch::randn({37, 1000}, torch::kDouble);
    const torch::Tensor w = torch::randn({1000}, torch::kDouble);
    const torch::Tensor g = torch::randn({37, 1000}, torch::kDouble);
    const c10::Device cuda(c10::kCUDA,
                           static_cast<c10::DeviceIndex>(devcheck::cuda_device_count() - 1));
    const Grads got = run([](auto& a, auto& b) { return devcheck::rms_norm(a, b, kEps); },
                          x.to(cuda, dtype), w.to(cuda, dtype), g.to(cuda));
    const Grads want = run([](auto& a, auto& b) { return reference(a, b); }, x, w, g);
    EXPECT_EQ(got.y.device(), cuda);
    expect_close(got.y.cpu(), want.y, tol, "cuda y");
    expect_close(got.gx.cpu(), want.gx, tol, "cuda grad x");
    expect_close(got.gw.cpu(), want.gw, tol * 8, "cuda grad weight");
  }
}

TEST(RmsNorm, RealPythonOnCudaMatchesTheReference_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  const auto result = devcheck::testing::run_process(
      {DEVCHECK_PYTHON, std::string(DEVCHECK_CUSTOM_OP_DIR) + "/tests/rms_norm_check.py",
       DEVCHECK_CUSTOM_OP_LIBRARY, "cuda"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("PASS forward cuda float16 [16, 1024]"));
}

}  // namespace
