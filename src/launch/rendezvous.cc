#include "launch/rendezvous.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace devcheck::detail {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  const int error = errno;
  ::close(fd);
  errno = error;
  return port;
}

std::string run_id() {
  unsigned char bytes[16] = {};
  std::ifstream random("/dev/urandom", std::ios::binary);
  random.read(reinterpret_cast<char*>(bytes), sizeof(bytes));
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  static const char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
    id += kHex[bytes[i] >> 4];
    id += kHex[bytes[i] & 0x0f];
  }
  return id;
}

std::vector<std::string> torchrun_variables(int nproc, int master_port, const std::string& run_id) {
  const std::string n = std::to_string(nproc);
  return {
      "WORLD_SIZE=" + n,
      "LOCAL_WORLD_SIZE=" + n,
      "ROLE_WORLD_SIZE=" + n,
      "GROUP_RANK=0",
      "GROUP_WORLD_SIZE=1",
      "ROLE_NAME=default",
      "MASTER_ADDR=127.0.0.1",
      "MASTER_PORT=" + std::to_string(master_port),
      "TORCHELASTIC_RUN_ID=" + run_id,
      "TORCHELASTIC_RESTART_COUNT=0",
      "TORCHELASTIC_MAX_RESTARTS=0",
      // Rank 0 hosts the TCPStore itself: there is no agent store here.
      "TORCHELASTIC_USE_AGENT_STORE=False",
  };
}

std::vector<std::string> rank_variables(int rank) {
  const std::string k = std::to_string(rank);
  return {"RANK=" + k, "LOCAL_RANK=" + k, "ROLE_RANK=" + k};
}

}  // namespace devcheck::detail
