// The fake accelerator: a second device that computes, fails like CUDA on
// mixed devices, and gives the CPU's results bit for bit.

#include "devcheck/fake_device.h"

#include <ATen/ops/_local_scalar_dense.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>
#include <torch/torch.h>

#include <thread>

#include "devcheck/device.h"
#include "devcheck/error.h"
#include "fake/error_of.h"
#include "support/support.h"

namespace devcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const char* const kSameDevice =
    "Expected all tensors to be on the same device, but found at least two devices, ";

using testing::error_of;

TEST(FakeDevice, IsAnAcceleratorDeviceOfItsOwn) {
  const c10::Device d = fake_device(1);
  EXPECT_EQ(d.type(), c10::DeviceType::PrivateUse1);
  EXPECT_EQ(d.index(), 1);
  EXPECT_TRUE(fake_device_registered());
  EXPECT_EQ(fake_device_count(), 2);
  EXPECT_EQ(c10::impl::VirtualGuardImpl(d.type()).deviceCount(), 2);
}

TEST(FakeDevice, IndexOutsideTheCountIsRefusedNamingTheRange) {
  try {
    fake_device(2);
    FAIL() << "fake_device(2) returned";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), AllOf(HasSubstr("fake_device(2)"), HasSubstr("[0, 2)"),
                                   HasSubstr("DEVCHECK_FAKE_DEVICES")));
  }
  EXPECT_THROW(fake_device(-1), InvalidArgumentError);
}

TEST(FakeDevice, FactoriesAndCopiesBothWaysKeepEveryValue) {
  const c10::Device d = fake_device(0);
  torch::Tensor cpu = torch::arange(12, torch::kFloat32).reshape({3, 4});
  torch::Tensor f = cpu.to(d);
  EXPECT_EQ(f.device(), d);
  EXPECT_TRUE(torch::equal(f.cpu(), cpu));
  // dtype-changing copies, both ways
  torch::Tensor h = cpu.to(d, torch::kFloat64);
  EXPECT_EQ(h.device(), d);
  EXPECT_EQ(h.scalar_type(), torch::kFloat64);
  EXPECT_TRUE(torch::equal(h.to(torch::kCPU, torch::kInt32), cpu.to(torch::kInt32)));
  // factories on the device
  torch::Tensor z = torch::zeros({2, 3}, torch::TensorOptions().device(d));
  EXPECT_EQ(z.device(), d);
  EXPECT_EQ(z.sum().item<float>(), 0.0F);
  torch::Tensor e = torch::empty_strided({2, 2}, {1, 2}, torch::TensorOptions().device(d));
  EXPECT_EQ(e.device(), d);
  EXPECT_EQ(e.stride(1), 2);
  // fake:0 -> fake:1 copies work, as cuda:0 -> cuda:1 do
  torch::Tensor g = f.to(fake_device(1));
  EXPECT_EQ(g.device(), fake_device(1));
  EXPECT_TRUE(torch::equal(g.cpu(), cpu));
}

TEST(FakeDevice, ViewsShareStorageAndInPlaceOpsWriteThrough) {
  const c10::Device d = fake_device(0);
  torch::Tensor base = torch::zeros({4, 4}, torch::TensorOptions().device(d));
  torch::Tensor row = base.select(0, 1);
  torch::Tensor col = base.t().narrow(0, 2, 1);
  EXPECT_EQ(row.device(), d);
  EXPECT_TRUE(row.is_alias_of(base));
  row.add_(1);
  col.mul_(3);
  base.index_put_({0, 0}, 7.0);
  torch::Tensor want = torch::zeros({4, 4});
  want.select(0, 1).add_(1);
  want.t().narrow(0, 2, 1).mul_(3);
  want.index_put_({0, 0}, 7.0);
  EXPECT_TRUE(torch::equal(base.cpu(), want));
  // an out= tensor that must grow gets the new memory on the fake device
  torch::Tensor out = torch::empty({0}, torch::TensorOptions().device(d));
  torch::add_out(out, base, base);
  EXPECT_EQ(out.sizes(), base.sizes());
  EXPECT_EQ(out.device(), d);
  EXPECT_TRUE(torch::equal(out.cpu(), want * 2));
  torch::Tensor r = torch::ones({2}, torch::TensorOptions().device(d));
  r.resize_({3, 3});
  EXPECT_EQ(r.numel(), 9);
  EXPECT_EQ(r.device(), d);
}

TEST(FakeDevice, MixingWithANonScalarCpuTensorFailsWithLibTorchsMessage) {
  const c10::Device d = fake_device(0);
  torch::Tensor f = torch::ones({3}, torch::TensorOptions().device(d));
  torch::Tensor c = torch::ones({3});
  const std::string both = std::string(kSameDevice) + d.str() + " and cpu!";
  // add's device check is TensorIterator's; mm's names the argument and the op
  EXPECT_THAT(error_of([&] { (void)(f + c); }), HasSubstr(both));
  // the CPU tensor first: the fake device is still named first, as CUDA's is
  EXPECT_THAT(error_of([&] { (void)(c + f); }), HasSubstr(both));
  torch::Tensor m = torch::ones({3, 3}, torch::TensorOptions().device(d));
  EXPECT_THAT(error_of([&] {
                (void)torch::mm(m, torch::ones({3, 3}));
              }),
              AllOf(HasSubstr(both), HasSubstr("mat2"), HasSubstr("aten::mm")));
}

TEST(FakeDevice, FakeZeroAndFakeOneDoNotMix) {
  torch::Tensor a = torch::ones({3}, torch::TensorOptions().device(fake_device(0)));
  torch::Tensor b = torch::ones({3}, torch::TensorOptions().device(fake_device(1)));
  EXPECT_THAT(error_of([&] { (void)(a * b); }),
              HasSubstr(std::string(kSameDevice) + fake_device(0).str() + " and " +
                        fake_device(1).str() + "!"));
}

TEST(FakeDevice, MetaDoesNotMixWithFake) {
  torch::Tensor a = torch::ones({3}, torch::TensorOptions().device(fake_device(0)));
  torch::Tensor m = torch::ones({3}, torch::TensorOptions().device(torch::kMeta));
  EXPECT_THAT(error_of([&] { (void)(a + m); }),
              HasSubstr(std::string(kSameDevice) + fake_device(0).str() + " and meta!"));
}

TEST(FakeDevice, ZeroDimCpuTensorsAndCpuIndicesAreAllowedAsOnCuda) {
  const c10::Device d = fake_device(0);
  torch::Tensor f = torch::arange(6, torch::TensorOptions().device(d).dtype(torch::kFloat32));
  torch::Tensor scaled = f * torch::tensor(2.0F);
  EXPECT_EQ(scaled.device(), d);
  torch::Tensor idx = torch::tensor({4, 1}, torch::kLong);
  torch::Tensor picked = f.index({idx});
  EXPECT_EQ(picked.device(), d);
  EXPECT_TRUE(torch::equal(picked.cpu(), torch::tensor({4.0F, 1.0F})));
  f.index_put_({idx}, torch::zeros({2}, torch::TensorOptions().device(d)));
  EXPECT_EQ(f.sum().item<float>(), 0.0F + 2 + 3 + 5);
}

// Two identical programs, one on the CPU and one on the fake device.
std::vector<torch::Tensor> train_steps(c10::Device d) {
  torch::manual_seed(7);
  torch::nn::Linear a(8, 16);
  torch::nn::Linear b(16, 3);
  a->to(d);
  b->to(d);
  std::vector<torch::Tensor> params = a->parameters();
  for (const auto& p : b->parameters()) params.push_back(p);
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-2));
  std::vector<torch::Tensor> losses;
  for (int step = 0; step < 5; ++step) {
    torch::Tensor x = torch::randn({32, 8}).to(d);
    torch::Tensor y = torch::randint(0, 3, {32}).to(d);
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(b(torch::relu(a(x))), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.detach().cpu());
  }
  losses.push_back(a->weight.detach().cpu());
  return losses;
}

TEST(FakeDevice, TrainingStepsEqualTheCpusBitwise) {
  const std::vector<torch::Tensor> cpu = train_steps(c10::Device(c10::kCPU));
  const std::vector<torch::Tensor> fake = train_steps(fake_device(0));
  ASSERT_EQ(cpu.size(), fake.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_TRUE(torch::equal(cpu[i], fake[i])) << "result " << i << " differs";
  }
}

TEST(FakeDevice, ModuleToKeepsParameterIdentityAndGradients) {
  torch::nn::Linear lin(4, 2);
  const torch::Tensor before = lin->weight;
  const void* impl = before.unsafeGetTensorImpl();
  lin->to(fake_device(1));
  EXPECT_EQ(lin->weight.device(), fake_device(1));
  EXPECT_EQ(lin->weight.unsafeGetTensorImpl(), impl);
  EXPECT_EQ(before.device(), fake_device(1));
  torch::Tensor out = lin(torch::ones({3, 4}).to(fake_device(1))).sum();
  out.backward();
  ASSERT_TRUE(lin->weight.grad().defined());
  EXPECT_EQ(lin->weight.grad().device(), fake_device(1));
  lin->to(torch::kCPU);
  EXPECT_TRUE(lin->weight.is_cpu());
}

// A backward that hands back its gradient on the CPU for a fake input.
struct WrongDeviceGrad : public torch::autograd::Function<WrongDeviceGrad> {
  static torch::Tensor forward(torch::autograd::AutogradContext* /*ctx*/, torch::Tensor x) {
    return x * 2;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* /*ctx*/,
                                                 torch::autograd::variable_list grads) {
    return {grads[0].cpu() * 2};
  }
};

TEST(FakeDevice, EngineRefusesAGradientOnTheWrongDevice) {
  torch::Tensor x =
      torch::ones({3}, torch::TensorOptions().device(fake_device(0)).requires_grad(true));
  torch::Tensor y = WrongDeviceGrad::apply(x).sum();
  EXPECT_THAT(
      error_of([&] { y.backward(); }),
      AllOf(HasSubstr("invalid gradient"), HasSubstr(fake_device(0).str()), HasSubstr("cpu")));
}

TEST(FakeDevice, GuardKeepsACurrentDevicePerThread) {
  const c10::impl::VirtualGuardImpl impl(c10::DeviceType::PrivateUse1);
  fake_device(0);
  {
    const c10::DeviceGuard guard(fake_device(1));
    EXPECT_EQ(impl.getDevice(), fake_device(1));
    // a factory without an index lands on the current device
    torch::Tensor t =
        torch::empty({1}, torch::TensorOptions().device(c10::DeviceType::PrivateUse1));
    EXPECT_EQ(t.device(), fake_device(1));
    c10::Device other(c10::kCPU);
    std::thread([&] { other = impl.getDevice(); }).join();
    EXPECT_EQ(other, fake_device(0));
  }
  EXPECT_EQ(impl.getDevice(), fake_device(0));
  EXPECT_THAT(error_of([&] { impl.setDevice(c10::Device(c10::DeviceType::PrivateUse1, 5)); }),
              HasSubstr("out of range"));
}

TEST(FakeDevice, StreamsAndEventsOrderWorkAsOnCuda) {
  const c10::impl::VirtualGuardImpl impl(c10::DeviceType::PrivateUse1);
  const c10::Device d = fake_device(1);
  const c10::Stream side = impl.getStreamFromGlobalPool(d, false);
  EXPECT_NE(side.id(), impl.getDefaultStream(d).id());
  EXPECT_EQ(side.device(), d);
  torch::Tensor src = torch::arange(4, torch::kFloat32);
  torch::Tensor dst;
  c10::Event done(c10::DeviceType::PrivateUse1);
  {
    const c10::StreamGuard on_side(side);
    EXPECT_EQ(impl.getStream(d), side);
    dst = src.to(d, /*non_blocking=*/true);
    done.record(side);
  }
  EXPECT_EQ(impl.getStream(d), impl.getDefaultStream(d));
  done.block(impl.getStream(d));
  EXPECT_TRUE(done.query());
  EXPECT_TRUE(torch::equal(dst.cpu(), src));
  c10::Event wrong(c10::DeviceType::PrivateUse1);
  EXPECT_THAT(error_of([&] {
                wrong.recordOnce(impl.getDefaultStream(fake_device(0)));
                wrong.record(side);
              }),
              HasSubstr("does not match"));
}

TEST(FakeDevice, SelectDeviceAcceptsFakeAndCountsIt) {
  EXPECT_EQ(select_device("fake").device, fake_device(0));
  EXPECT_EQ(select_device("FAKE:1").device, fake_device(1));
  EXPECT_EQ(select_device("privateuseone:1").device, fake_device(1));
  try {
    select_device("fake:3");
    FAIL() << "fake:3 was selected";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_THAT(e.message(), AllOf(HasSubstr("'fake:3'"), HasSubstr("2 fake devices")));
  }
  EXPECT_NE(select_device("auto").device.type(), c10::DeviceType::PrivateUse1);
  bool listed = false;
  for (const DeviceInfo& info : list_devices()) {
    listed = listed || info.device == fake_device(1);
  }
  EXPECT_TRUE(listed);
}

TEST(FakeDevice, PythonLoadsTheLibraryAndComputesOnIt) {
  const testing::ProcessResult r = testing::run_python(
      "import sys, torch\n"
      "sys.path.insert(0, sys.argv[2])\n"
      "import devcheck_fake\n"
      "d = devcheck_fake.load(sys.argv[1], 1)\n"
      "n = torch.ops.devcheck.register_fake_device()\n"
      "assert d.type == ('fake' if torch.__version__ >= '2' else 'privateuseone'), d\n"
      "x = torch.arange(6.0).reshape(2, 3).to(d)\n"
      "m = torch.nn.Linear(3, 2)\n"
      "torch.manual_seed(0); ref = torch.nn.Linear(3, 2); ref.load_state_dict(m.state_dict())\n"
      "m.to(d)\n"
      "y = m(x).sum(); y.backward()\n"
      "yr = ref(torch.arange(6.0).reshape(2, 3)).sum(); yr.backward()\n"
      "assert y.device == d, y.device\n"
      "assert torch.equal(y.cpu(), yr), (y, yr)\n"
      "assert torch.equal(m.weight.grad.cpu(), ref.weight.grad)\n"
      "try:\n"
      "    x + torch.ones(2, 3)\n"
      "    print('no error')\n"
      "except RuntimeError as e:\n"
      "    print(str(e).splitlines()[0])\n"
      "print('count', n)\n",
      {DEVCHECK_FAKE_DEVICE_LIBRARY, testing::source_dir() + "/python"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("count 2"));
  EXPECT_THAT(r.output, AllOf(HasSubstr(kSameDevice), HasSubstr(":1 and cpu!")));
}

TEST(FakeDevice, CountComesFromTheEnvironmentAndABadValueIsNamed) {
  const std::string code =
      "import sys, torch\n"
      "torch.ops.load_library(sys.argv[1])\n"
      "try:\n"
      "    print('count', torch.ops.devcheck.register_fake_device())\n"
      "except RuntimeError as e:\n"
      "    print(str(e).splitlines()[0])\n";
  const testing::ProcessResult three =
      testing::run_python(code, {DEVCHECK_FAKE_DEVICE_LIBRARY}, {"DEVCHECK_FAKE_DEVICES=3"});
  ASSERT_EQ(three.exit_code, 0) << three.output;
  EXPECT_THAT(three.output, HasSubstr("count 3"));
  const testing::ProcessResult bad =
      testing::run_python(code, {DEVCHECK_FAKE_DEVICE_LIBRARY}, {"DEVCHECK_FAKE_DEVICES=9"});
  ASSERT_EQ(bad.exit_code, 0) << bad.output;
  EXPECT_THAT(bad.output, AllOf(HasSubstr("DEVCHECK_FAKE_DEVICES='9'"), HasSubstr("from 1 to 8")));
}

}  // namespace
}  // namespace devcheck
