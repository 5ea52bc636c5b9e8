#pragma once
// Starts the ranks of a distributed test as child processes, each with the
// environment a launcher gives it (RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT: a free port), and
// waits for all of them up to a deadline; any still running then is killed.

#include <chrono>
#include <string>
#include <vector>

namespace devcheck::testing {

struct RankResult {
  int exit_code = -1;  // -1 when killed at the deadline or by a signal
  bool timed_out = false;
  double seconds = 0;  // from start to exit
  std::string output;  // stdout and stderr together
};

// A TCP port on 127.0.0.1 nobody listened on a moment ago.
int free_port();

// Runs `argv` `world` times as ranks 0 .. world-1. `env` is added to each
// rank's environment ("K=V"). Returns one result per rank.
std::vector<RankResult> run_ranks(const std::vector<std::string>& argv, int world,
                                  std::chrono::seconds deadline,
                                  const std::vector<std::string>& env = {});

// The worker program of tests/distributed (worker.cc).
std::string worker_path();

// The worker of local_all_reduce_test.cc (local_all_reduce_worker.cc).
std::string local_all_reduce_worker_path();

}  // namespace devcheck::testing
