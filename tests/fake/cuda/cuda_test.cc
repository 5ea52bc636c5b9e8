// Fake CUDA from C++: cuda:N devices that compute as the CPU does, bit for
// bit, and fail as a GPU of this LibTorch version fails. Each test runs in a
// process of its own (ctest), as fake CUDA cannot be turned off.

#include "devcheck/fake_cuda.h"

#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/cuda.h>
#include <torch/library.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "detail/compat.h"
#include "devcheck/device.h"
#include "devcheck/doctor.h"
#include "devcheck/error.h"
#include "fake/error_of.h"
#include "support/support.h"

namespace devcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const char* const kSameDevice =
    "Expected all tensors to be on the same device, but found at least two devices, ";

using testing::error_of;

c10::Device cuda(int index) {
  return {c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index)};
}

// The wrapper a CUDA build names in its generated device checks.
std::string wrapper(const std::string& op) {
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  return "wrapper_CUDA_" + op;
#else
  return "wrapper_" + op;
#endif
}

TEST(FakeCuda, TurnsOnTheCudaDevicesLibTorchReports) {
  const std::vector<c10::Device> devices = fake_cuda(2);
  ASSERT_EQ(devices.size(), 2U);
  EXPECT_EQ(devices[1], cuda(1));
  EXPECT_EQ(fake_cuda_count(), 2);
  EXPECT_TRUE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 2U);
  EXPECT_TRUE(at::globalContext().hasCUDA());
  // no cuDNN, so composite ops never pick a cudnn_* kernel
  EXPECT_FALSE(at::detail::getCUDAHooks().compiledWithCuDNN());
  EXPECT_EQ(c10::impl::VirtualGuardImpl(c10::DeviceType::CUDA).deviceCount(), 2);
  // a second call with the same count is a no-op
  EXPECT_EQ(fake_cuda(2), devices);
}

TEST(FakeCuda, ACountOutsideOneToEightOrUnlikeTheFirstIsRefusedNamingIt) {
  for (const int bad : {0, 9, -1}) {
    try {
      fake_cuda(bad);
      FAIL() << "fake_cuda(" << bad << ") returned";
    } catch (const InvalidArgumentError& e) {
      EXPECT_THAT(e.message(), AllOf(HasSubstr("fake_cuda(" + std::to_string(bad) + ")"),
                                     HasSubstr("from 1 to 8")));
    }
  }
  EXPECT_EQ(fake_cuda_count(), 0);  // nothing was turned on
  fake_cuda(2);
  try {
    fake_cuda(3);
    FAIL() << "fake_cuda(3) after fake_cuda(2) returned";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(),
                AllOf(HasSubstr("fake_cuda(3)"), HasSubstr("already has 2 fake CUDA devices")));
  }
}

TEST(FakeCuda, TheEnvironmentCountIsReadAndABadValueIsNamed) {
  ::setenv("DEVCHECK_FAKE_CUDA", "3", 1);
  EXPECT_EQ(fake_cuda_count_from_environment(), 3);
  ::setenv("DEVCHECK_FAKE_CUDA", "0", 1);
  EXPECT_EQ(fake_cuda_count_from_environment(), 0);
  ::unsetenv("DEVCHECK_FAKE_CUDA");
  EXPECT_EQ(fake_cuda_count_from_environment(), 0);
  for (const char* bad : {"9", "two", "-1", "12"}) {
    ::setenv("DEVCHECK_FAKE_CUDA", bad, 1);
    try {
      fake_cuda_count_from_environment();
      FAIL() << bad << " was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_THAT(e.message(), AllOf(HasSubstr("DEVCHECK_FAKE_CUDA='" + std::string(bad) + "'"),
                                     HasSubstr("1 to 8")));
    }
  }
  ::unsetenv("DEVCHECK_FAKE_CUDA");
}

TEST(FakeCuda, TheRequestTakesTheCommandLinesCountFirstAndForceFromEither) {
  ::setenv("DEVCHECK_FAKE_CUDA", "lots", 1);
  ::unsetenv("DEVCHECK_FAKE_CUDA_FORCE");
  // A count given on the command line: the environment's is never read.
  FakeCudaRequest given;
  given.count = 3;
  FakeCudaRequest request = fake_cuda_request_from_environment(given);
  EXPECT_EQ(request.count, 3);
  EXPECT_FALSE(request.force);
  EXPECT_THROW(fake_cuda_request_from_environment(), InvalidArgumentError);
  ::setenv("DEVCHECK_FAKE_CUDA", "4", 1);
  EXPECT_EQ(fake_cuda_request_from_environment().count, 4);
  for (const char* off : {"", "0"}) {
    ::setenv("DEVCHECK_FAKE_CUDA_FORCE", off, 1);
    EXPECT_FALSE(fake_cuda_request_from_environment().force) << "'" << off << "'";
  }
  ::setenv("DEVCHECK_FAKE_CUDA_FORCE", "1", 1);
  EXPECT_TRUE(fake_cuda_request_from_environment().force);
  ::unsetenv("DEVCHECK_FAKE_CUDA_FORCE");
  given.force = true;
  EXPECT_TRUE(fake_cuda_request_from_environment(given).force);
  ::unsetenv("DEVCHECK_FAKE_CUDA");
  request = fake_cuda_request_from_environment();
  EXPECT_EQ(request.count, 0);
  EXPECT_FALSE(request.force);
}

TEST(FakeCuda, StartingFromTheEnvironmentTurnsOnItsCountAndNothingWithoutOne) {
  ::unsetenv("DEVCHECK_FAKE_CUDA");
  EXPECT_EQ(start_fake_cuda_from_environment(), 0);
  EXPECT_EQ(fake_cuda_count(), 0);
  ::setenv("DEVCHECK_FAKE_CUDA", "3", 1);
  EXPECT_EQ(start_fake_cuda_from_environment(), 3);
  ::unsetenv("DEVCHECK_FAKE_CUDA");
  EXPECT_EQ(fake_cuda_count(), 3);
  EXPECT_EQ(torch::cuda::device_count(), 3U);
}

TEST(FakeCuda, ThisMachineHasNoRealCudaDevice) {
  // The machine the suite runs on has no GPU; scripts/gpu-check.sh checks
  // the refusal where there is one.
  EXPECT_TRUE(real_cuda_devices().empty());
  // So the refusal to hide one lets every request through.
  FakeCudaRequest request;
  request.count = 2;
  EXPECT_NO_THROW(refuse_fake_cuda_over_real_gpus(request, "run"));
  EXPECT_NO_THROW(refuse_fake_cuda_over_real_gpus(request));
}

TEST(FakeCuda, FactoriesCopiesAndViewsKeepEveryValue) {
  fake_cuda(2);
  const torch::Tensor cpu = torch::arange(12, torch::kFloat32).reshape({3, 4});
  const torch::Tensor g = cpu.to(cuda(0));
  EXPECT_TRUE(g.is_cuda());
  EXPECT_EQ(g.device(), cuda(0));
  EXPECT_TRUE(torch::equal(g.cpu(), cpu));
  const torch::Tensor h = g.to(cuda(1), torch::kFloat64);
  EXPECT_EQ(h.device(), cuda(1));
  EXPECT_TRUE(torch::equal(h.to(torch::kCPU, torch::kFloat32), cpu));
  torch::Tensor z = torch::zeros({2, 3}, torch::TensorOptions().device(torch::kCUDA));
  EXPECT_EQ(z.device(), cuda(0));  // "cuda" is the current device
  z.select(0, 1).add_(2);
  EXPECT_EQ(z.sum().item<float>(), 6.0F);
  EXPECT_THAT(c10::str(z), HasSubstr("CUDAFloatType"));
}

TEST(FakeCuda, MixingDevicesFailsWithTheCudaBuildsOwnMessage) {
  fake_cuda(2);
  const torch::Tensor g = torch::ones({3}, cuda(0));
  // TensorIterator's check: the device that is not the CPU comes first
  EXPECT_EQ(error_of([&] { (void)(g + torch::ones({3})); }),
            std::string(kSameDevice) + "cuda:0 and cpu!");
  EXPECT_EQ(error_of([&] { (void)(torch::ones({3}) * g); }),
            std::string(kSameDevice) + "cuda:0 and cpu!");
  EXPECT_EQ(error_of([&] { (void)(g - torch::ones({3}, cuda(1))); }),
            std::string(kSameDevice) + "cuda:0 and cuda:1!");
  // a generated check names the argument and the CUDA wrapper
  const torch::Tensor m = torch::ones({2, 2}, cuda(0));
  EXPECT_EQ(error_of([&] {
              (void)torch::mm(m, torch::ones({2, 2}));
            }),
            std::string(kSameDevice) +
                "cuda:0 and cpu! (when checking argument for argument mat2 in method " +
                wrapper("mm") + ")");
  EXPECT_EQ(error_of([&] { (void)torch::index_select(m, 0, torch::tensor({1})); }),
            std::string(kSameDevice) +
                "cuda:0 and cpu! (when checking argument for argument index in method " +
                wrapper("_index_select") + ")");
}

TEST(FakeCuda, CpuScalarsAndCpuIndicesAreAllowedAsOnAGpu) {
  fake_cuda(2);
  const torch::Tensor g =
      torch::arange(6, torch::TensorOptions().device(cuda(0)).dtype(torch::kFloat32));
  EXPECT_TRUE(torch::equal((g * torch::tensor(2.0F)).cpu(), torch::arange(6, torch::kFloat32) * 2));
  const torch::Tensor picked = g.index({torch::tensor({4, 1})});
  EXPECT_EQ(picked.device(), cuda(0));
  EXPECT_TRUE(torch::equal(picked.cpu(), torch::tensor({4.0F, 1.0F})));
}

TEST(FakeCuda, AnOrdinalItDoesNotHaveIsCudasInvalidDeviceOrdinal) {
  fake_cuda(2);
  const std::string text = error_of([] { (void)torch::ones({1}, cuda(5)); });
  EXPECT_EQ(text, std::string("CUDA error: invalid device ordinal") + DEVCHECK_CUDA_CHECK_SUFFIX);
  EXPECT_THAT(error_of([] { (void)torch::ones({1}).to(cuda(2)); }),
              StartsWith("CUDA error: invalid device ordinal"));
  EXPECT_THAT(
      error_of([] { c10::impl::VirtualGuardImpl(c10::DeviceType::CUDA).setDevice(cuda(7)); }),
      StartsWith("CUDA error: invalid device ordinal"));
}

TEST(FakeCuda, CudaVisibleDevicesChoosesWhichOfTheMachinesDevicesTheProcessSees) {
  ::setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  const std::vector<c10::Device> devices = fake_cuda(2);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_EQ(devices.size(), 1U);
  EXPECT_EQ(devices[0], cuda(0));
  EXPECT_EQ(fake_cuda_count(), 1);
  EXPECT_EQ(torch::cuda::device_count(), 1U);
  EXPECT_EQ(torch::ones({2}, cuda(0)).device(), cuda(0));
  EXPECT_EQ(error_of([] { (void)torch::ones({1}, cuda(1)); }),
            std::string("CUDA error: invalid device ordinal") + DEVCHECK_CUDA_CHECK_SUFFIX);
  // read once, as the runtime reads it: changing it later changes nothing
  ::setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
  EXPECT_EQ(torch::cuda::device_count(), 1U);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  // the machine still has 2: the same count again is a no-op, another is refused
  EXPECT_EQ(fake_cuda(2), devices);
  EXPECT_THROW(fake_cuda(3), InvalidArgumentError);
}

TEST(FakeCuda, WithNoVisibleDeviceCudaIsUnavailableAndEveryCallSaysSo) {
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_TRUE(fake_cuda(2).empty());
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(fake_cuda_count(), 0);
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0U);
  EXPECT_EQ(error_of([] { (void)torch::ones({1}, cuda(0)); }), "No CUDA GPUs are available");
  EXPECT_EQ(error_of([] { (void)torch::ones({1}).to(torch::kCUDA); }),
            "No CUDA GPUs are available");
  // the CPU goes on
  EXPECT_TRUE(torch::equal(torch::ones({2}) + 1, torch::full({2}, 2.0F)));
}

TEST(FakeCuda, TheDevicesAreDecidedAtTheFirstCudaCallNotWhenItIsTurnedOn) {
  // devcheck run turns fake CUDA on when LibTorch loads; the program may set
  // CUDA_VISIBLE_DEVICES after that, before its first CUDA call, as it may on a GPU.
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ::setenv("DEVCHECK_FAKE_CUDA", "3", 1);
  EXPECT_EQ(start_fake_cuda_from_environment(), 3);
  ::unsetenv("DEVCHECK_FAKE_CUDA");
  ::setenv("CUDA_VISIBLE_DEVICES", "2,0", 1);
  EXPECT_EQ(torch::cuda::device_count(), 2U);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(fake_cuda_count(), 2);
  EXPECT_EQ(torch::ones({1}, cuda(1)).device(), cuda(1));
}

// Two identical programs, one on the CPU and one on cuda:1.
std::vector<torch::Tensor> train_steps(c10::Device d) {
  torch::manual_seed(7);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 4, 3));
  torch::nn::Linear head(4 * 6 * 6, 3);
  conv->to(d);
  head->to(d);
  std::vector<torch::Tensor> params = conv->parameters();
  for (const auto& p : head->parameters()) params.push_back(p);
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-2));
  std::vector<torch::Tensor> out;
  for (int step = 0; step < 4; ++step) {
    const torch::Tensor x = torch::randn({8, 1, 8, 8}).to(d);
    const torch::Tensor y = torch::randint(0, 3, {8}).to(d);
    opt.zero_grad();
    const torch::Tensor loss =
        torch::nn::functional::cross_entropy(head(torch::relu(conv(x)).flatten(1)), y);
    loss.backward();
    opt.step();
    out.push_back(loss.detach().cpu());
  }
  out.push_back(conv->weight.detach().cpu());
  return out;
}

TEST(FakeCuda, TrainingStepsEqualTheCpusBitwise) {
  fake_cuda(2);
  const std::vector<torch::Tensor> cpu = train_steps(c10::Device(c10::kCPU));
  const std::vector<torch::Tensor> gpu = train_steps(cuda(1));
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_TRUE(torch::equal(cpu[i], gpu[i])) << "result " << i << " differs";
  }
}

TEST(FakeCuda, RandomNumbersComeFromOneGeneratorPerDeviceSeededByTheCudaSeed) {
  fake_cuda(2);
  torch::cuda::manual_seed_all(11);
  const torch::Tensor a0 = torch::randn({4}, cuda(0));
  const torch::Tensor a1 = torch::randn({4}, cuda(1));
  torch::cuda::manual_seed_all(11);
  EXPECT_TRUE(torch::equal(torch::randn({4}, cuda(0)).cpu(), a0.cpu()));
  EXPECT_TRUE(torch::equal(torch::randn({4}, cuda(1)).cpu(), a1.cpu()));
  // each device draws from its own generator: the CPU's draws do not move it
  torch::cuda::manual_seed_all(11);
  (void)torch::randn({100});
  EXPECT_TRUE(torch::equal(torch::randn({4}, cuda(0)).cpu(), a0.cpu()));
  // torch::manual_seed seeds every generator, and a seed draws the same numbers everywhere
  torch::manual_seed(11);
  EXPECT_TRUE(torch::equal(torch::randn({4}), a0.cpu()));
  EXPECT_TRUE(torch::equal(torch::randn({4}, cuda(1)).cpu(), a1.cpu()));
}

TEST(FakeCuda, GuardsStreamsAndEventsWorkAsOnCuda) {
  fake_cuda(2);
  const c10::impl::VirtualGuardImpl impl(c10::DeviceType::CUDA);
  {
    const c10::DeviceGuard guard(cuda(1));
    EXPECT_EQ(torch::empty({1}, torch::TensorOptions().device(torch::kCUDA)).device(), cuda(1));
    c10::Device other(c10::kCPU);
    std::thread([&] { other = impl.getDevice(); }).join();
    EXPECT_EQ(other, cuda(0));
  }
  const c10::Stream side = impl.getStreamFromGlobalPool(cuda(0), false);
  EXPECT_NE(side.id(), impl.getDefaultStream(cuda(0)).id());
  c10::Event done(c10::DeviceType::CUDA);
  torch::Tensor dst;
  {
    const c10::StreamGuard on_side(side);
    dst = torch::arange(4).to(cuda(0), /*non_blocking=*/true);
    done.record(side);
  }
  done.block(impl.getStream(cuda(0)));
  EXPECT_TRUE(done.query());
  EXPECT_TRUE(torch::equal(dst.cpu(), torch::arange(4)));
}

TEST(FakeCuda, ModulesMoveWholeAndLstmsAndGrusRunTheirCudaPath) {
  fake_cuda(2);
  torch::manual_seed(3);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(4, 5).num_layers(2));
  torch::nn::LSTM twin(torch::nn::LSTMOptions(4, 5).num_layers(2));
  for (size_t i = 0; i < lstm->parameters().size(); ++i) {
    torch::NoGradGuard no_grad;
    twin->parameters()[i].copy_(lstm->parameters()[i]);
  }
  twin->to(cuda(0));
  const torch::Tensor x = torch::randn({6, 3, 4});
  const torch::Tensor want = std::get<0>(lstm->forward(x));
  const torch::Tensor got = std::get<0>(twin->forward(x.to(cuda(0))));
  EXPECT_EQ(got.device(), cuda(0));
  EXPECT_TRUE(torch::allclose(got.cpu(), want, 1e-5, 1e-6));
  got.sum().backward();
  want.sum().backward();
  EXPECT_TRUE(torch::allclose(twin->parameters()[0].grad().cpu(), lstm->parameters()[0].grad(),
                              1e-5, 1e-5));
  // a hidden state left on the CPU is named as on a GPU
  const auto h0 = std::make_tuple(torch::zeros({2, 3, 5}), torch::zeros({2, 3, 5}));
  EXPECT_EQ(error_of([&] { twin->forward(x.to(cuda(0)), h0); }),
            "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and "
            "hidden tensor at cpu");
  torch::nn::GRU gru(torch::nn::GRUOptions(4, 5));
  gru->to(cuda(1));
  EXPECT_EQ(std::get<0>(gru->forward(x.to(cuda(1)))).device(), cuda(1));
}

TEST(FakeCuda, PinnedHostMemoryIsPinned) {
  fake_cuda(2);
  const torch::Tensor t = torch::arange(8, torch::kFloat32);
  const torch::Tensor p = t.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_FALSE(t.is_pinned());
  EXPECT_TRUE(p.is_cpu());
  EXPECT_TRUE(torch::equal(p.to(cuda(0), /*non_blocking=*/true).cpu(), t));
}

TEST(FakeCuda, DevicesAreListedAsFakeAndAutoChoosesThem) {
  fake_cuda(2);
  const Selection s = select_device("auto");
  EXPECT_EQ(s.device, cuda(0));
  EXPECT_THAT(s.reason, HasSubstr("fake CUDA"));
  bool listed = false;
  for (const DeviceInfo& info : list_devices()) {
    if (info.device == cuda(1)) listed = info.name.find("fake CUDA") != std::string::npos;
  }
  EXPECT_TRUE(listed);
  const EnvironmentReport report = environment_report();
  EXPECT_EQ(report.fake_cuda, 2);
  EXPECT_THAT(report.to_text(), HasSubstr("CUDA:      fake: 2 devcheck fake CUDA devices"));
  EXPECT_THAT(report.to_json(), HasSubstr("\"fake_cuda\": 2"));
}

// An op an extension registered for CUDA only, as a real GPU kernel would be.
int64_t cuda_only_kernel(const at::Tensor& /*self*/) {
  TORCH_CHECK(false, "a real CUDA kernel ran");
}

TORCH_LIBRARY(devcheck_fake_cuda_test, m) { m.def("cuda_only(Tensor self) -> int"); }
TORCH_LIBRARY_IMPL(devcheck_fake_cuda_test, CUDA, m) { m.impl("cuda_only", &cuda_only_kernel); }

TEST(FakeCuda, AnOpWithAKernelForRealGpusOnlyFailsNamingTheOp) {
  fake_cuda(2);
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("devcheck_fake_cuda_test::cuda_only", "")
                             .typed<int64_t(const at::Tensor&)>();
  const std::string text = error_of([] { (void)op.call(torch::ones({1}, cuda(0))); });
  EXPECT_THAT(text, AllOf(HasSubstr("devcheck_fake_cuda_test::cuda_only"),
                          HasSubstr("no CPU kernel"), HasSubstr("real devices only")));
}

TEST(FakeCuda, AForkedChildOfAProcessThatUsedCudaCannotUseIt) {
  fake_cuda(2);
  const torch::Tensor g = torch::ones({2}, cuda(0));
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string out =
        error_of([] { (void)torch::ones({1}).to(c10::Device(c10::DeviceType::CUDA, 0)); });
    out += "\n" + error_of([&] { (void)(g + 1); });
    (void)!::write(pipe_fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string got;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) got.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  // a C++ program's CUDA calls fail as the driver fails them in a child
  // (Python's torch.cuda says "Cannot re-initialize CUDA in forked
  // subprocess" first: fake_cuda_scenarios.py's forked_worker)
  const std::string message =
      std::string("CUDA error: initialization error") + DEVCHECK_CUDA_CHECK_SUFFIX;
  EXPECT_EQ(got, message + "\n" + message);
  // the parent goes on
  EXPECT_TRUE(torch::equal((g + 1).cpu(), torch::full({2}, 2.0F)));
}

}  // namespace
}  // namespace devcheck
