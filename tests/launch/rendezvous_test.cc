// How a local run's ranks find each other (src/launch/rendezvous.cc).
#include "launch/rendezvous.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <regex>
#include <string>

namespace devcheck::detail {
namespace {

using ::testing::ElementsAre;

TEST(FreePort, IsAPortOfTheLoopbackThatCanBeBoundAtOnce) {
  const int port = free_port();
  ASSERT_GT(port, 0);
  ASSERT_LE(port, 65535);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(fd);
}

TEST(RunId, IsAFreshUuid4) {
  const std::string id = run_id();
  EXPECT_TRUE(std::regex_match(
      id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << id;
  EXPECT_NE(run_id(), id);
}

TEST(TorchrunVariables, AreWhatTorchrunsLocalAgentSetsForOneNode) {
  EXPECT_THAT(
      torchrun_variables(3, 29517, "id"),
      ElementsAre("WORLD_SIZE=3", "LOCAL_WORLD_SIZE=3", "ROLE_WORLD_SIZE=3", "GROUP_RANK=0",
                  "GROUP_WORLD_SIZE=1", "ROLE_NAME=default", "MASTER_ADDR=127.0.0.1",
                  "MASTER_PORT=29517", "TORCHELASTIC_RUN_ID=id", "TORCHELASTIC_RESTART_COUNT=0",
                  "TORCHELASTIC_MAX_RESTARTS=0", "TORCHELASTIC_USE_AGENT_STORE=False"));
  EXPECT_THAT(rank_variables(2), ElementsAre("RANK=2", "LOCAL_RANK=2", "ROLE_RANK=2"));
}

}  // namespace
}  // namespace devcheck::detail
