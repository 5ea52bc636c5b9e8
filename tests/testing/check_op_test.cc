// check_op passes a correct operator and catches each bug of deliberately
// broken ones: no device guard, a device-type-only internal assert, a wrong
// Meta kernel, a wrong result on an accelerator, no autograd, a Meta kernel
// that lets cpu with meta through.

#include "devcheck/check_op.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/library.h>
#include <torch/torch.h>

#include <string>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "devcheck/op.h"

namespace {

// The correct op: y = x * w over the last dimension, checked and guarded;
// ATen's ops underneath give it Meta and autograd.
at::Tensor scale_good(const at::Tensor& x, const at::Tensor& w) {
  const auto inputs = DEVCHECK_OP_INPUTS("checkop_test::scale_good", x, w);
  return x * w;
}

// pytorch/pytorch#54077's bug: the inputs are checked but no guard is kept,
// so the output is allocated on the current device of their type.
at::Tensor scale_no_guard(const at::Tensor& x, const at::Tensor& w) {
  (void)devcheck::check_op_inputs("checkop_test::scale_no_guard", "x, w", {x, w});
  at::Tensor out = at::empty(x.sizes(), x.options().device(x.device().type()));
  return out.copy_(x * w);
}

// The tutorial's check: device type only, with an internal assert.
at::Tensor scale_type_assert(const at::Tensor& x, const at::Tensor& w) {
  TORCH_INTERNAL_ASSERT(x.device().type() == w.device().type());
  return at::mul(x, w);
}

// An accelerator kernel that forgets the weight.
at::Tensor scale_wrong_result(const at::Tensor& x, const at::Tensor& w) {
  const auto inputs = DEVCHECK_OP_INPUTS("checkop_test::scale_wrong_result", x, w);
  return x.is_cpu() || x.is_meta() ? x * w : x.clone();
}

// Backend kernels without autograd: the CPU kernel, and Meta kernels
// (one right, one wrong in shape, one that checks no devices). The ops made
// of them lack autograd too; their tests look for their Meta bug.
at::Tensor scale_cpu(const at::Tensor& x, const at::Tensor& w) {
  const auto inputs = DEVCHECK_OP_INPUTS("checkop_test::scale", x, w);
  at::NoGradGuard no_grad;
  return x * w;
}
at::Tensor scale_meta(const at::Tensor& x, const at::Tensor& w) {
  const auto inputs = DEVCHECK_OP_INPUTS("checkop_test::scale", x, w);
  return at::empty(x.sizes(), x.options());
}
at::Tensor scale_meta_wrong_shape(const at::Tensor& x, const at::Tensor& w) {
  const auto inputs = DEVCHECK_OP_INPUTS("checkop_test::scale", x, w);
  return at::empty({x.size(0)}, x.options());
}
at::Tensor scale_meta_unchecked(const at::Tensor& x, const at::Tensor& /*w*/) {
  return at::empty(x.sizes(), x.options());
}

// "No autograd" as LibTorch 2.x's default autograd fallback has it (the
// call runs, its outputs get no gradient); 1.13 would refuse meta and fake
// calls of an op without autograd kernels outright.
void autograd_falls_through(torch::Library& m, const char* op) {
  for (const auto key : {c10::DispatchKey::AutogradCPU, c10::DispatchKey::AutogradMeta,
                         c10::DispatchKey::AutogradPrivateUse1}) {
    m.impl(op, key, torch::CppFunction::makeFallthrough());
  }
}

TORCH_LIBRARY(checkop_test, m) {
  m.def("scale_good(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_good", c10::DispatchKey::CompositeImplicitAutograd, TORCH_FN(scale_good));
  m.def("scale_no_guard(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_no_guard", c10::DispatchKey::CompositeImplicitAutograd, TORCH_FN(scale_no_guard));
  m.def("scale_type_assert(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_type_assert", c10::DispatchKey::CompositeImplicitAutograd,
         TORCH_FN(scale_type_assert));
  m.def("scale_wrong_result(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_wrong_result", c10::DispatchKey::CompositeImplicitAutograd,
         TORCH_FN(scale_wrong_result));
  m.def("scale_no_autograd(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_no_autograd", c10::DispatchKey::CPU, TORCH_FN(scale_cpu));
  m.impl("scale_no_autograd", c10::DispatchKey::Meta, TORCH_FN(scale_meta));
  autograd_falls_through(m, "scale_no_autograd");
  m.def("scale_bad_meta(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_bad_meta", c10::DispatchKey::CPU, TORCH_FN(scale_cpu));
  m.impl("scale_bad_meta", c10::DispatchKey::Meta, TORCH_FN(scale_meta_wrong_shape));
  autograd_falls_through(m, "scale_bad_meta");
  m.def("scale_unchecked_meta(Tensor x, Tensor w) -> Tensor");
  m.impl("scale_unchecked_meta", c10::DispatchKey::CPU, TORCH_FN(scale_cpu));
  m.impl("scale_unchecked_meta", c10::DispatchKey::Meta, TORCH_FN(scale_meta_unchecked));
  autograd_falls_through(m, "scale_unchecked_meta");
}

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;

std::vector<devcheck::testing::OpSample> samples() {
  torch::manual_seed(0);
  return {{torch::randn({4, 8}), torch::randn({8})}, {torch::randn({3, 5}).t(), torch::randn({3})}};
}

std::string fake(int i) { return devcheck::fake_device(i).str(); }

TEST(CheckOp, PassesACorrectOpOnEveryDevice) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_good", samples());
  EXPECT_TRUE(report.ok()) << report.to_string();
  EXPECT_THAT(report.devices, Contains("meta"));
  EXPECT_THAT(report.devices, Contains(fake(1)));
  // 2 samples x (cpu, meta, fake:0, fake:1 runs + placements + meta shapes + values
  // + 3 mixes x 2 arguments + autograd), well above a handful.
  EXPECT_GT(report.checks_passed, 40);
}

TEST(CheckOp, CatchesAMissingDeviceGuardByTheOutputsDevice) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_no_guard", samples());
  EXPECT_THAT(report.failures,
              Contains(AllOf(HasSubstr("sample 0"), HasSubstr("output 0 is on " + fake(0)),
                             HasSubstr("inputs are on " + fake(1)), HasSubstr("no device guard"))))
      << report.to_string();
}

TEST(CheckOp, CatchesAnInternalAssertOnMixedDevices) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_type_assert", samples());
  EXPECT_THAT(report.failures,
              Contains(AllOf(HasSubstr("'w' on " + fake(0) + " and the other inputs on cpu"),
                             HasSubstr("raised an internal assert"))))
      << report.to_string();
}

TEST(CheckOp, CatchesAnErrorThatDoesNotNameTheArgument) {
  // fake:0 with fake:1 passes the type-only assert and reaches aten::mul,
  // whose error names aten::mul's argument, not this op's.
  const auto report = devcheck::testing::check_op("checkop_test::scale_type_assert", samples());
  EXPECT_THAT(report.failures,
              Contains(AllOf(HasSubstr("'w' on " + fake(1)),
                             HasSubstr("does not name an argument of the op ('x', 'w') and "
                                       "both devices"),
                             HasSubstr("Expected all tensors to be on the same device"))))
      << report.to_string();
}

TEST(CheckOp, CatchesAWrongResultOnTheFakeDevice) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_wrong_result", samples());
  EXPECT_THAT(report.failures,
              Contains(AllOf(HasSubstr("sample 0 on " + fake(0)),
                             HasSubstr("output 0 differs from the CPU's: largest difference"))))
      << report.to_string();
}

TEST(CheckOp, CatchesAMissingAutogradKernel) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_no_autograd", samples());
  // Its one bug: every failure is autograd's.
  for (const std::string& failure : report.failures) {
    EXPECT_THAT(failure, HasSubstr("(autograd)"));
  }
  EXPECT_THAT(report.failures, Contains(AllOf(HasSubstr("sample 0 on cpu (autograd)"),
                                              HasSubstr("autograd is not registered for this op"))))
      << report.to_string();
}

TEST(CheckOp, CatchesAMetaKernelWithTheWrongShape) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_bad_meta", samples());
  EXPECT_THAT(report.failures,
              Contains(AllOf(HasSubstr("sample 0 on cpu: output 0 is [4, 8] Float on cpu"),
                             HasSubstr("the Meta kernel says [4] Float on meta"))))
      << report.to_string();
}

TEST(CheckOp, CatchesCpuWithMetaReturningInsteadOfRaising) {
  const auto report = devcheck::testing::check_op("checkop_test::scale_unchecked_meta", samples());
  EXPECT_THAT(report.failures,
              Contains(AllOf(HasSubstr("'x' on meta and the other inputs on cpu"),
                             HasSubstr("returned [4, 8] Float on meta instead of raising"))))
      << report.to_string();
}

TEST(CheckOp, UnknownOpIsAnInvalidArgumentNamingIt) {
  try {
    devcheck::testing::check_op("checkop_test::no_such_op", samples());
    FAIL() << "check_op returned";
  } catch (const devcheck::InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("no operator 'checkop_test::no_such_op' is registered"));
  }
}

TEST(CheckOp, SampleOffTheCpuIsAnInvalidArgumentNamingTheArgument) {
  const std::vector<devcheck::testing::OpSample> on_fake = {
      {torch::ones({2, 2}),
       torch::ones({2}, torch::TensorOptions().device(devcheck::fake_device(0)))}};
  try {
    devcheck::testing::check_op("checkop_test::scale_good", on_fake);
    FAIL() << "check_op returned";
  } catch (const devcheck::InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), AllOf(HasSubstr("sample 0 has argument 'w' on " + fake(0)),
                                   HasSubstr("samples are CPU tensors")));
  }
}

}  // namespace
