// Fake CUDA's answers to torch's profiler (src/fake/cuda/profiler.cc): the
// CUDA stubs it registers record events on the host clock, on the current
// fake device, and visit every fake device.

#include <c10/core/Device.h>
#include <c10/core/DeviceGuard.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <thread>
#include <vector>

#include "devcheck/fake_cuda.h"
#include "fake/cuda/profiler.h"
#include "fake/error_of.h"

namespace devcheck {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using torch::profiler::impl::cudaStubs;

int64_t realtime_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

using Args = detail::ProfilerRecord;

TEST(FakeCudaProfiler, EventsAreOnTheCurrentDeviceAndTimeTheHostBetweenThem) {
  fake_cuda(2);
  ASSERT_TRUE(cudaStubs()->enabled());
  const c10::DeviceGuard on_one(c10::Device("cuda:1"));
  Args::Device device = -1;
  Args::Event start;
  Args::Event end;
  int64_t cpu_ns = 0;
  const int64_t before = realtime_ns();
  cudaStubs()->record(&device, &start, &cpu_ns);
  const int64_t after = realtime_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cudaStubs()->record(nullptr, &end, nullptr);  // as Kineto's GPU fallback asks
  EXPECT_EQ(device, 1);
  // The op's CPU clock (the profiler's getTime(): CLOCK_REALTIME).
  EXPECT_GE(cpu_ns, before);
  EXPECT_LE(cpu_ns, after);
  // Microseconds, as CUDA's stubs give them.
  const float us = cudaStubs()->elapsed(&start, &end);
  EXPECT_GE(us, 20000.0F);
  EXPECT_LT(us, 20000.0F * 500);
  EXPECT_LE(cudaStubs()->elapsed(&end, &start), -20000.0F);
}

TEST(FakeCudaProfiler, OnEachDeviceVisitsEveryFakeDeviceAsTheCurrentOne) {
  fake_cuda(3);
  const c10::DeviceGuard on_two(c10::Device("cuda:2"));
  std::vector<int> visited;
  std::vector<int> current;
  cudaStubs()->onEachDevice([&](int index) {
    visited.push_back(index);
    Args::Device device = -1;
    Args::Event event;
    cudaStubs()->record(&device, &event, nullptr);
    current.push_back(device);
  });
  EXPECT_EQ(visited, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(current, (std::vector<int>{0, 1, 2}));
  Args::Device device = -1;
  Args::Event event;
  cudaStubs()->record(&device, &event, nullptr);
  EXPECT_EQ(device, 2) << "the device it was on is restored";
  cudaStubs()->synchronize();
  cudaStubs()->mark("mark");
  cudaStubs()->rangePush("range");
  cudaStubs()->rangePop();
}

TEST(FakeCudaProfiler, ElapsedOfAnEventNeverRecordedSaysWhich) {
  fake_cuda(1);
  Args::Event recorded;
  cudaStubs()->record(nullptr, &recorded, nullptr);
  const Args::Event never;
  EXPECT_THAT(error_of([&] { cudaStubs()->elapsed(&recorded, &never); }),
              HasSubstr("the profiler's second CUDA event was never recorded"));
  EXPECT_THAT(error_of([&] { cudaStubs()->elapsed(&never, &recorded); }),
              HasSubstr("the profiler's first CUDA event was never recorded"));
}

}  // namespace
}  // namespace devcheck
