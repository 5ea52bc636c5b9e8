#include "distributed/ranks.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/support.h"

namespace devcheck::testing {
namespace {

// Gloo of 2025 on (Debian sid's) logs every TCP connection to stderr
// unconditionally ("[./gloo/transport/tcp/context.cc:243] INFO Rank 0 is
// connected to 1. ..."): the library's line, not the rank's own output.
std::string without_gloo_info_lines(const std::string& text) {
  std::string kept;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const bool gloo_info = line.rfind("[", 0) == 0 && line.find("gloo/") != std::string::npos &&
                           line.find("] INFO ") != std::string::npos;
    if (!gloo_info) kept += line + (in.eof() ? "" : "\n");
  }
  return kept;
}

}  // namespace

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw std::runtime_error("bind() to a free port failed");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::vector<RankResult> run_ranks(const std::vector<std::string>& argv, int world,
                                  std::chrono::seconds deadline,
                                  const std::vector<std::string>& env) {
  TempDir logs;
  const int port = free_port();
  const auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> pids(static_cast<size_t>(world), -1);
  std::vector<RankResult> results(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    const std::string log = (logs.path() / ("rank" + std::to_string(r))).string();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork() failed");
    if (pid == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      for (const std::string& kv : env) {
        const auto eq = kv.find('=');
        setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
      }
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    pids[static_cast<size_t>(r)] = pid;
  }
  int running = world;
  while (running > 0) {
    const bool late = std::chrono::steady_clock::now() - start > deadline;
    for (int r = 0; r < world; ++r) {
      pid_t& pid = pids[static_cast<size_t>(r)];
      if (pid < 0) continue;
      RankResult& result = results[static_cast<size_t>(r)];
      if (late) {
        kill(pid, SIGKILL);
        result.timed_out = true;
      }
      int status = 0;
      if (waitpid(pid, &status, late ? 0 : WNOHANG) == pid) {
        result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        pid = -1;
        --running;
      }
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int r = 0; r < world; ++r) {
    results[static_cast<size_t>(r)].output =
        without_gloo_info_lines(read_file(logs.path() / ("rank" + std::to_string(r))));
  }
  return results;
}

std::string worker_path() { return DEVCHECK_DISTRIBUTED_WORKER; }

std::string local_all_reduce_worker_path() { return DEVCHECK_LOCAL_ALL_REDUCE_WORKER; }

}  // namespace devcheck::testing
