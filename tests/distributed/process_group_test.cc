#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "devcheck/device.h"
#include "devcheck/distributed.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "distributed/ranks.h"
#include "support/support.h"

namespace devcheck {
namespace {

// Sets the launcher's variables for this test and restores them after.
class DistributedEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kNames) {
      const char* value = std::getenv(name);
      saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
    }
    setenv("RANK", "1", 1);
    setenv("WORLD_SIZE", "2", 1);
    unsetenv("LOCAL_RANK");
    unsetenv("LOCAL_WORLD_SIZE");
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("MASTER_PORT", "29500", 1);
  }
  void TearDown() override {
    for (size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i]) {
        setenv(kNames[i], saved_[i]->c_str(), 1);
      } else {
        unsetenv(kNames[i]);
      }
    }
  }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const InvalidArgumentError& e) {
      return e.what();
    }
    return "no error";
  }
  static constexpr const char* kNames[] = {"RANK",        "WORLD_SIZE",  "LOCAL_RANK",
                                           "MASTER_ADDR", "MASTER_PORT", "LOCAL_WORLD_SIZE"};
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(DistributedEnvTest, ReadsTheLauncherVariablesAndDefaultsLocalRankToRank) {
  const DistributedEnv env = DistributedEnv::from_env();
  EXPECT_EQ(env.rank, 1);
  EXPECT_EQ(env.world_size, 2);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.master_addr, "127.0.0.1");
  EXPECT_EQ(env.master_port, 29500);
  setenv("LOCAL_RANK", "0", 1);
  EXPECT_EQ(DistributedEnv::from_env().local_rank, 0);
  EXPECT_EQ(env.local_world_size, 2);  // unset: every rank on this machine
  setenv("LOCAL_WORLD_SIZE", "1", 1);
  EXPECT_EQ(DistributedEnv::from_env().local_world_size, 1);
}

TEST_F(DistributedEnvTest, MissingVariableIsNamedWithTheLaunchersThatSetIt) {
  unsetenv("WORLD_SIZE");
  const std::string message = error_of([] { DistributedEnv::from_env(); });
  EXPECT_NE(message.find("environment variable WORLD_SIZE is not set"), std::string::npos)
      << message;
  EXPECT_NE(message.find("devcheck launch"), std::string::npos) << message;
  setenv("WORLD_SIZE", "2", 1);
  unsetenv("MASTER_ADDR");
  EXPECT_NE(error_of([] {
              DistributedEnv::from_env();
            }).find("environment variable MASTER_ADDR is not set"),
            std::string::npos);
}

TEST_F(DistributedEnvTest, MalformedVariablesAreNamedWithWhatTheyShouldBe) {
  setenv("RANK", "2", 1);
  EXPECT_NE(error_of([] {
              DistributedEnv::from_env();
            }).find("environment variable RANK=\"2\" is not an integer in [0, 2) (WORLD_SIZE=2)"),
            std::string::npos);
  setenv("RANK", "0", 1);
  setenv("MASTER_PORT", "http", 1);
  EXPECT_NE(error_of([] {
              DistributedEnv::from_env();
            }).find("environment variable MASTER_PORT=\"http\" is not a TCP port in 1..65535"),
            std::string::npos);
  setenv("MASTER_PORT", "29500", 1);
  setenv("LOCAL_WORLD_SIZE", "3", 1);
  EXPECT_NE(error_of([] { DistributedEnv::from_env(); })
                .find("environment variable LOCAL_WORLD_SIZE=\"3\" is not an integer in [1, 2] "
                      "(the ranks on this machine; WORLD_SIZE=2)"),
            std::string::npos);
  unsetenv("LOCAL_WORLD_SIZE");
  setenv("WORLD_SIZE", "0", 1);
  EXPECT_NE(error_of([] {
              DistributedEnv::from_env();
            }).find("environment variable WORLD_SIZE=\"0\" is not an integer >= 1"),
            std::string::npos);
}

DistributedEnv world_of_one() {
  DistributedEnv env;
  env.master_port = testing::free_port();
  return env;
}

TEST(ProcessGroup, AWorldOfOneOnTheCpuIsGloo) {
  ProcessGroup group(world_of_one(), ProcessGroupOptions().device("cpu"));
  EXPECT_EQ(group.backend(), "gloo");
  EXPECT_EQ(group.device(), c10::Device(c10::kCPU));
  at::Tensor t = at::arange(4, at::kFloat);
  group.all_reduce_sum(t);
  group.broadcast(t);
  EXPECT_TRUE(at::equal(t, at::arange(4, at::kFloat)));
  EXPECT_EQ(group.all_gather_string("mine"), std::vector<std::string>{"mine"});
  group.barrier();
}

TEST(ProcessGroup, FakeDeviceTensorsGoThroughGlooInPlace) {
  ProcessGroup group(world_of_one(), ProcessGroupOptions().device("fake"));
  EXPECT_EQ(group.device(), fake_device(0));
  at::Tensor t = at::arange(6, at::TensorOptions(at::kFloat).device(group.device()));
  group.all_reduce_sum(t);
  group.all_reduce_sum(t.view({2, 3}).t());  // not contiguous: staged by a copy
  EXPECT_EQ(t.device(), group.device());
  EXPECT_TRUE(at::equal(t.cpu(), at::arange(6, at::kFloat)));
}

TEST(ProcessGroup, AWorldOfOneOnCudaIsNccl_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  ProcessGroup group(world_of_one(), ProcessGroupOptions().device("cuda"));
  EXPECT_EQ(group.backend(), "nccl");
  EXPECT_EQ(group.device(), c10::Device(c10::kCUDA, 0));
  at::Tensor t = at::arange(4, at::TensorOptions(at::kFloat).device(group.device()));
  group.all_reduce_sum(t);
  EXPECT_TRUE(at::equal(t.cpu(), at::arange(4, at::kFloat)));
}

TEST(ProcessGroup, RefusesAPolicyWithAnIndex) {
  try {
    ProcessGroup group(world_of_one(), ProcessGroupOptions().device("fake:1"));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("device policy \"fake:1\" names an index; each rank's "
                                         "device is LOCAL_RANK's"),
              std::string::npos)
        << e.what();
  }
}

TEST(ProcessGroup, RefusesARankOutsideItsWorld) {
  DistributedEnv env = world_of_one();
  env.rank = 3;
  try {
    ProcessGroup group(env);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 3 is outside a world of 1"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace devcheck
