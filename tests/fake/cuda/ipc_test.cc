// CUDA IPC under fake CUDA, its C++ half: a fake cuda storage moves into a
// CPU storage (the shared memory Python makes for torch's sharing
// strategy) in place, and a receiver shows such memory as a cuda tensor.
// Each test runs in a process of its own (ctest), as fake CUDA cannot be
// turned off.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "fake/error_of.h"

namespace devcheck {
namespace {

using ::testing::HasSubstr;

using testing::error_of;

c10::Device cuda(int index) {
  return {c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index)};
}

torch::jit::Stack call(const char* name, torch::jit::Stack stack) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  op.callBoxed(&stack);
  return stack;
}

c10::optional<torch::Tensor> shared_host(const torch::Tensor& t, const std::string& strategy) {
  const torch::jit::Stack out = call("devcheck::fake_cuda_shared_host", {t, strategy});
  if (out.at(0).isNone()) return c10::nullopt;
  return out.at(0).toTensor();
}

void share_into(const torch::Tensor& t, const torch::Tensor& host, const std::string& strategy) {
  call("devcheck::fake_cuda_share_into_", {t, host, strategy});
}

torch::Tensor from_host(const torch::Tensor& host, int64_t device, c10::ScalarType dtype,
                        int64_t offset, std::vector<int64_t> size, std::vector<int64_t> stride) {
  return call("devcheck::fake_cuda_from_host", {host, device, std::string("file_descriptor"), dtype,
                                                offset, std::move(size), std::move(stride)})
      .at(0)
      .toTensor();
}

int64_t allocated(int device) {
  return call("devcheck::fake_cuda_memory_stats", {int64_t{device}}).at(0).toIntVector().at(0);
}

TEST(FakeCudaIpc, SharingMovesTheStorageInPlaceAndEveryTensorOnItFollows) {
  fake_cuda(2);
  const torch::Tensor t = torch::arange(6, torch::TensorOptions().dtype(torch::kFloat)).to(cuda(1));
  const torch::Tensor view = t.slice(0, 2, 4);
  const int64_t before = allocated(1);
  EXPECT_FALSE(shared_host(t, "file_descriptor").has_value());

  const torch::Tensor host = torch::zeros({24}, torch::kByte);
  share_into(t, host, "file_descriptor");
  // the bytes are there, and the tensor shows them from now on
  EXPECT_TRUE(torch::equal(host.view(torch::kFloat), torch::arange(6).to(torch::kFloat)));
  EXPECT_EQ(t.data_ptr(), host.data_ptr());
  EXPECT_EQ(t.device(), cuda(1));
  host.view(torch::kFloat)[3].fill_(30.0F);  // what a receiver writes
  EXPECT_EQ(view[1].item<float>(), 30.0F);
  t.add_(1);
  EXPECT_EQ(host.view(torch::kFloat)[0].item<float>(), 1.0F);
  // still counted on its device, as a GPU's caching allocator counts a block it shared
  EXPECT_EQ(allocated(1), before);
  // asked again, the same memory
  const c10::optional<torch::Tensor> again = shared_host(view, "file_descriptor");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->data_ptr(), host.data_ptr());
  EXPECT_EQ(again->numel(), 24);
}

TEST(FakeCudaIpc, MemorySharedForOneStrategyIsNotSharedForAnother) {
  fake_cuda(2);
  const torch::Tensor t = torch::ones({4}, cuda(0));
  share_into(t, torch::zeros({16}, torch::kByte), "file_descriptor");
  EXPECT_EQ(error_of([&] { (void)shared_host(t, "file_system"); }),
            "devcheck fake CUDA: this cuda tensor's memory was shared between processes with "
            "torch.multiprocessing's 'file_descriptor' sharing strategy; sharing it again with "
            "'file_system' is not emulated (set the strategy once, before the first cuda tensor "
            "is sent)");
  EXPECT_THAT(error_of([&] { share_into(t, torch::zeros({16}, torch::kByte), "file_descriptor"); }),
              HasSubstr("shared already"));
  EXPECT_THAT(error_of([&] { share_into(t, torch::zeros({8}, torch::kByte), "x"); }),
              HasSubstr("shared already"));
  const torch::Tensor u = torch::ones({4}, cuda(0));
  EXPECT_EQ(error_of([&] { share_into(u, torch::zeros({8}, torch::kByte), "file_descriptor"); }),
            "[devcheck] fake_cuda_share_into_: 8 bytes of shared memory for a storage of 16");
  EXPECT_THAT(error_of([&] { (void)shared_host(torch::ones({2}), "file_descriptor"); }),
              HasSubstr("expected a strided cuda tensor of fake CUDA"));
}

TEST(FakeCudaIpc, AReceiverShowsTheSendersMemoryAsACudaTensor) {
  fake_cuda(2);
  const torch::Tensor host = torch::zeros({32}, torch::kByte);
  host.view(torch::kFloat).copy_(torch::arange(8).to(torch::kFloat));
  const int64_t before = allocated(0);
  const torch::Tensor t = from_host(host, 0, torch::kFloat, 2, {2, 2}, {1, 2});
  EXPECT_EQ(t.device(), cuda(0));
  EXPECT_EQ(t.dtype(), torch::kFloat);
  EXPECT_TRUE(torch::equal(t.cpu(), torch::tensor({{2.0F, 4.0F}, {3.0F, 5.0F}})));
  t.mul_(10);
  EXPECT_EQ(host.view(torch::kFloat)[5].item<float>(), 50.0F);
  // a mapping of another process's memory is not this process's allocation
  EXPECT_EQ(allocated(0), before);
  // and, as a GPU's IPC storage, it cannot grow
  EXPECT_FALSE(t.storage().resizable());
}

TEST(FakeCudaIpc, AReceiverWithoutThatDeviceFailsAsAGpuDoes) {
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  fake_cuda(2);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  const torch::Tensor host = torch::zeros({8}, torch::kByte);
  EXPECT_EQ(error_of([&] { (void)from_host(host, 1, torch::kFloat, 0, {2}, {1}); }),
            std::string("CUDA error: invalid device ordinal") + DEVCHECK_CUDA_CHECK_SUFFIX);
}

}  // namespace
}  // namespace devcheck
