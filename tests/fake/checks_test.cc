// The device check before each op: fake CUDA's, from the CUDA build's own
// table (fake_cuda_checks.cc), and the fake accelerator's, TensorIterator's.

#include "fake/checks.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/library.h>
#include <torch/nn/functional/loss.h>

#include <string>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "devcheck/fake_device.h"
#include "fake/error_of.h"

namespace devcheck::detail {
namespace {

using ::testing::HasSubstr;

const std::string kSame =
    "Expected all tensors to be on the same device, but found at least two devices, ";

using testing::error_of;

std::string wrapper(const std::string& op) {
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  return "wrapper_CUDA_" + op;
#else
  return "wrapper_" + op;
#endif
}

const c10::Device kCuda0("cuda:0");

TEST(FakeChecks, TheTableHasTheCudaBuildsWrappersAndTheirArguments) {
  const CudaCheckRule* mm = cuda_check_rule("aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(std::string(mm->method), wrapper("mm"));
  EXPECT_EQ(std::string(mm->arguments), "self,mat2");
  const CudaCheckRule* select = cuda_check_rule("aten::index_select");
  ASSERT_NE(select, nullptr);
  EXPECT_EQ(std::string(select->method), wrapper("_index_select"));
  // TensorIterator ops have a CUDA kernel and check in TensorIterator, not in their wrapper
  const CudaCheckRule* add = cuda_check_rule("aten::add.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->method, nullptr);
  // ops without a CUDA kernel (composite ones, others' ops) are not in it
  EXPECT_EQ(cuda_check_rule("aten::linear"), nullptr);
  EXPECT_EQ(cuda_check_rule("devcheck::no_such_op"), nullptr);
}

TEST(FakeChecks, AnOpACudaBuildHasNoCudaKernelForFailsAsOnAGpu) {
  fake_cuda(2);
  // a CPU-only op: the dispatcher's own words, as a GPU build gives them
  static auto* library = new torch::Library(torch::Library::DEF, "devcheck_cpu_only_test",
                                            c10::nullopt, __FILE__, __LINE__);
  library->def("twice(Tensor x) -> Tensor");
  static auto* cpu = new torch::Library(torch::Library::IMPL, "devcheck_cpu_only_test",
                                        c10::DispatchKey::CPU, __FILE__, __LINE__);
  cpu->impl("twice", [](const at::Tensor& x) { return x * 2; });
  const auto op = c10::Dispatcher::singleton()
                      .findSchemaOrThrow("devcheck_cpu_only_test::twice", "")
                      .typed<at::Tensor(const at::Tensor&)>();
  EXPECT_THAT(
      error_of([&] { (void)op.call(at::ones({2}, kCuda0)); }),
      HasSubstr("Could not run 'devcheck_cpu_only_test::twice' with arguments from the 'CUDA' "
                "backend"));
  // a sparse CUDA tensor is not emulated, and says so
  EXPECT_THAT(error_of([] { (void)at::ones({2}).to_sparse().to(kCuda0); }),
              HasSubstr("fake CUDA does not emulate: it holds dense (strided) CUDA tensors only"));
}

TEST(FakeChecks, AListArgumentAndAnOptionalOneAreNamedAsTheWrapperNamesThem) {
  fake_cuda(2);
  const at::Tensor g = at::ones({2}, kCuda0);
  EXPECT_EQ(error_of([&] {
              (void)at::cat({g, at::ones({2})});
            }),
            kSame + "cuda:0 and cpu! (when checking argument for argument tensors in method " +
                wrapper("cat") + ")");
  const at::Tensor logits = at::randn({4, 3}, kCuda0);
  const at::Tensor target = at::zeros({4}, at::TensorOptions().device(kCuda0).dtype(at::kLong));
  EXPECT_EQ(error_of([&] {
              (void)torch::nn::functional::cross_entropy(
                  logits, target,
                  torch::nn::functional::CrossEntropyFuncOptions().weight(at::ones({3})));
            }),
            kSame + "cuda:0 and cpu! (when checking argument for argument weight in method " +
                wrapper("nll_loss_forward") + ")");
}

TEST(FakeChecks, TheFirstCheckedArgumentSetsTheDeviceEvenOnTheCpu) {
  fake_cuda(2);
  EXPECT_EQ(error_of([] {
              (void)at::mm(at::ones({2, 2}), at::ones({2, 2}, kCuda0));
            }),
            kSame + "cpu and cuda:0! (when checking argument for argument mat2 in method " +
                wrapper("mm") + ")");
  // a generated check allows no 0-dim CPU tensor
  EXPECT_EQ(error_of([] {
              (void)at::addmm(at::tensor(1.0F), at::ones({2, 2}, kCuda0), at::ones({2, 2}, kCuda0));
            }),
            kSame + "cpu and cuda:0! (when checking argument for argument mat1 in method " +
                wrapper("addmm") + ")");
}

TEST(FakeChecks, KernelsThatCheckInTheirOwnWordsDoSo) {
  fake_cuda(2);
  const at::Tensor x = at::randn({3, 4}, kCuda0);
  EXPECT_EQ(
      error_of([&] {
        (void)x.masked_fill(at::ones({3, 4}, at::kBool), 0.0);
      }),
      "expected self and mask to be on the same device, but got mask on cpu and self on cuda:0");
  EXPECT_EQ(error_of([&] {
              (void)x.masked_fill(
                  at::ones({3, 4}, at::TensorOptions().device(kCuda0).dtype(at::kBool)),
                  at::ones({2}));
            }),
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
            "dimension(s).");
  EXPECT_EQ(error_of([] {
              (void)at::arange(5.0).index({at::tensor({1, 2}).to(kCuda0)});
            }),
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
  // TensorIterator lets one 0-dim CPU input through, not two
  EXPECT_EQ(error_of([&] { (void)(x * at::scalar_tensor(2.0)); }), "(no error)");
  EXPECT_EQ(error_of([&] { (void)at::addcmul(x, at::scalar_tensor(1.0), at::scalar_tensor(2.0)); }),
            "Trying to pass too many CPU scalars to non-CPU kernel!");
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  EXPECT_EQ(error_of([&] { (void)at::where(x > 0, x, at::scalar_tensor(0.0)); }), "(no error)");
#else
  EXPECT_EQ(error_of([&] { (void)at::where(x > 0, x, at::scalar_tensor(0.0)); }),
            kSame + "cuda:0 and cpu!");
#endif
}

// index and index_put_ take indices on the CPU with a device tensor and, as
// a GPU's kernels do, copy them to the tensor's device before indexing
// (move_cpu_indices): the results are the CPU's, and the list the caller
// gave keeps its CPU tensors.
TEST(FakeChecks, IndexCopiesCpuIndicesToTheTensorsDeviceAndLeavesTheCallersList) {
  fake_cuda(2);
  const c10::Device cuda1("cuda:1");
  const at::Tensor cpu = at::arange(12.0).reshape({3, 4});
  const at::Tensor x = cpu.to(cuda1);
  const at::Tensor rows = at::tensor({2, 0}, at::kLong);
  c10::List<c10::optional<at::Tensor>> indices;
  indices.push_back(rows);
  indices.push_back(c10::nullopt);
  const at::Tensor picked = at::index(x, indices);
  EXPECT_EQ(picked.device(), cuda1);
  EXPECT_TRUE(at::equal(picked.cpu(), at::index(cpu, indices)));
  ASSERT_TRUE(indices.get(0).has_value());
  EXPECT_TRUE(indices.get(0)->is_cpu());
  EXPECT_TRUE(indices.get(0)->is_same(rows));
  // a boolean mask on the CPU, and index_put_ accumulating through CPU indices
  const at::Tensor mask = cpu.remainder(3).eq(0);
  EXPECT_TRUE(at::equal(x.index({mask}).cpu(), cpu.index({mask})));
  at::Tensor y = x.clone();
  at::Tensor expected = cpu.clone();
  const at::Tensor twice = at::tensor({1, 1}, at::kLong);
  y.index_put_({twice}, at::ones({2, 4}).to(cuda1), /*accumulate=*/true);
  expected.index_put_({twice}, at::ones({2, 4}), /*accumulate=*/true);
  EXPECT_TRUE(at::equal(y.cpu(), expected));
  EXPECT_TRUE(twice.is_cpu());
}

TEST(FakeChecks, AConvolutionChecksItsParametersTypesAsCudnnDoes) {
  fake_cuda(2);
  const at::Tensor input = at::randn({1, 1, 5, 5}, kCuda0);
  EXPECT_EQ(error_of([&] {
              (void)at::conv2d(input, at::randn({2, 1, 3, 3}));
            }),
            "Input type (CUDAFloatType) and weight type (CPUFloatType) should be the same");
  EXPECT_EQ(error_of([&] {
              (void)at::conv2d(input, at::randn({2, 1, 3, 3}, kCuda0), at::zeros({2}));
            }),
            "Input type (CUDAFloatType) and bias type (CPUFloatType) should be the same");
  EXPECT_EQ(error_of([&] {
              (void)at::conv2d(input.cpu(), at::randn({2, 1, 3, 3}, kCuda0));
            }),
            "Input type (CPUFloatType) and weight type (CUDAFloatType) should be the same or input "
            "should be a "
            "MKLDNN tensor and weight is a dense tensor");
}

TEST(FakeChecks, TheFakeAcceleratorChecksAsTensorIteratorAndNamesTheAtenOp) {
  const c10::Device d = fake_device(0);
  // (its structured ops arrive as their out= variant, aten::mm.out)
  EXPECT_THAT(error_of([&] {
                (void)at::mm(at::ones({2, 2}, d), at::ones({2, 2}));
              }),
              HasSubstr(kSame + d.str() +
                        " and cpu! (when checking argument for argument mat2 in method aten::mm"));
}

}  // namespace
}  // namespace devcheck::detail
