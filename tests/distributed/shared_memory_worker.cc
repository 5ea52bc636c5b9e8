// One rank of tests/distributed/shared_memory_test.cc (started by run_ranks):
//   shared_memory_worker reduce OUT_DIR
//       connects a LocalAllReduce and averages tensors of several dtypes and
//       sizes, each three times (both parities of the segment), writing the
//       results to OUT_DIR/rank<R>.pt; prints "transport shared memory" and
//       how many segments of rank 0's are still named in /dev/shm.
//   shared_memory_worker off     rank 1 does not want shared memory
//   shared_memory_worker huge    asks for slots larger than /dev/shm
//   shared_memory_worker absent  rank 1 connects and leaves; rank 0 averages
//   shared_memory_worker dies    as absent, but both hold_alive() and the
//                                timeout is a minute: rank 1 is seen gone
// Prints an error's message on stderr and exits 3 when one is thrown.
#include <ATen/ATen.h>
#include <dirent.h>
#include <sys/statvfs.h>
#include <torch/serialize.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "devcheck/distributed.h"
#include "distributed/shared_memory.h"
#include "distributed/shared_memory_cases.h"
#include "distributed/worker_main.h"

namespace {

using devcheck::ProcessGroup;
using devcheck::ProcessGroupOptions;
using devcheck::detail::LocalAllReduce;

// Entries of /dev/shm named after this process's segments.
int segments_named_in_dev_shm() {
  const std::string prefix = "devcheck-ddp-" + std::to_string(::getpid()) + "-";
  int count = 0;
  if (DIR* dir = ::opendir("/dev/shm")) {
    while (const dirent* entry = ::readdir(dir)) {
      if (std::string(entry->d_name).rfind(prefix, 0) == 0) ++count;
    }
    ::closedir(dir);
  }
  return count;
}

int reduce(const std::string& out) {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  std::string declined;
  std::unique_ptr<LocalAllReduce> local = LocalAllReduce::connect(
      group, devcheck::testing::kLargestCaseBytes, /*wanted=*/true, &declined);
  if (!local) {
    std::cerr << "declined: " << declined << std::endl;
    return 4;
  }
  std::cout << "transport shared memory, capacity " << local->capacity() << "\n";
  if (group.rank() == 0)
    std::cout << "segments in /dev/shm " << segments_named_in_dev_shm() << "\n";
  std::vector<at::Tensor> results;
  for (const devcheck::testing::ReduceCase& c : devcheck::testing::reduce_cases()) {
    for (int round = 0; round < 3; ++round) {
      at::Tensor t = devcheck::testing::case_input(c, group.rank(), round);
      local->all_reduce_mean(t);
      results.push_back(t);
    }
  }
  torch::save(results, out + "/rank" + std::to_string(group.rank()) + ".pt");
  group.barrier();
  return 0;
}

int declines(const std::string& mode) {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  std::string declined;
  const bool huge = mode == "huge";
  size_t capacity = 1024;
  if (huge) {
    // Each of the four slots as large as all free space in /dev/shm.
    struct statvfs fs {};
    if (::statvfs("/dev/shm", &fs) != 0 || fs.f_blocks == 0) {
      std::cout << "/dev/shm has no size limit" << std::endl;
      return 0;
    }
    capacity = static_cast<size_t>(fs.f_bavail) * fs.f_frsize;
  }
  const std::unique_ptr<LocalAllReduce> local =
      LocalAllReduce::connect(group, capacity, /*wanted=*/huge || group.rank() != 1, &declined);
  std::cout << (local ? "connected" : "declined: " + declined) << std::endl;
  group.barrier();
  return 0;
}

int absent(bool alive) {
  ProcessGroup group = ProcessGroup::from_env(
      ProcessGroupOptions().device("cpu").timeout(std::chrono::milliseconds(alive ? 60000 : 5000)));
  std::string declined;
  const std::unique_ptr<LocalAllReduce> local =
      LocalAllReduce::connect(group, 1024, /*wanted=*/true, &declined);
  if (!local) {
    std::cerr << "declined: " << declined << std::endl;
    return 4;
  }
  if (alive) local->hold_alive();
  if (group.rank() == 1) {
    if (alive) std::_Exit(0);  // "dies": ends as a crash would, the segment still mapped
    return 0;
  }
  local->all_reduce_mean(at::ones({16}));
  std::cout << "rank 0 finished an all-reduce alone" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  return devcheck::testing::exit_status_of([&] {
    if (mode == "reduce" && argc > 2) return reduce(argv[2]);
    if (mode == "off" || mode == "huge") return declines(mode);
    if (mode == "absent" || mode == "dies") return absent(mode == "dies");
    std::cerr << "usage: shared_memory_worker reduce OUT_DIR | off | huge | absent | dies\n";
    return 2;
  });
}
