// One rank of tests/distributed/local_all_reduce_test.cc (run_ranks starts it):
//   local_all_reduce_worker reduce OUT_DIR none|all|odd
//       connects a LocalAllReduce and averages tensors of several dtypes and
//       sizes, each three times, writing the results to OUT_DIR/rank<R>.pt;
//       prints "transport shared memory" and how many segments of rank 0's
//       are still named in /dev/shm. The tensors are copied into the segment,
//       or adopted into it first (every rank: all, odd ranks: odd), which
//       prints "adopted K of N" (values kept, memory moved).
//   local_all_reduce_worker arena
//       adopt's refusals, its arena filled, freed and filled again, and the
//       segment mapped until the last adopted storage is freed
//   local_all_reduce_worker off          rank 1 does not want shared memory
//   local_all_reduce_worker huge         asks for slots larger than /dev/shm
//   local_all_reduce_worker huge-arena
//       small slots, arenas larger than /dev/shm: connects without arenas
//       ("arena 0")
//   local_all_reduce_worker mismatch     rank 1 averages a larger tensor than rank 0
//   local_all_reduce_worker absent       rank 1 connects and leaves; rank 0 averages
//   local_all_reduce_worker dies
//       as absent, but both hold_alive() and the timeout is a minute: rank 1
//       is seen gone
// Prints an error's message on stderr and exits 3 when one is thrown.
#include <ATen/ATen.h>
#include <dirent.h>
#include <sys/statvfs.h>
#include <torch/serialize.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "devcheck/distributed.h"
#include "distributed/local_all_reduce.h"
#include "distributed/local_all_reduce_cases.h"
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

// Lines of /proc/self/maps naming a segment of this process's rank 0 (rank 0's pid).
int segment_mappings(int64_t rank0_pid) {
  const std::string prefix = "/dev/shm/devcheck-ddp-" + std::to_string(rank0_pid) + "-";
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find(prefix) != std::string::npos) ++count;
  }
  return count;
}

// A connected LocalAllReduce, or nullptr after printing why it declined.
std::unique_ptr<LocalAllReduce> connect_or_say(const ProcessGroup& group, size_t capacity,
                                               size_t arena) {
  std::string declined;
  std::unique_ptr<LocalAllReduce> local =
      LocalAllReduce::connect(group, capacity, arena, /*wanted=*/true, &declined);
  if (!local) std::cerr << "declined: " << declined << std::endl;
  return local;
}

int reduce(const std::string& out, const std::string& adopt) {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  // An arena for the largest case: every case is adopted, averaged and freed
  // in turn, so the arena's blocks are reused.
  std::unique_ptr<LocalAllReduce> local = connect_or_say(
      group, devcheck::testing::kLargestCaseBytes, devcheck::testing::kLargestCaseBytes);
  if (!local) return 4;
  std::cout << "transport shared memory, capacity " << local->capacity() << "\n";
  if (group.rank() == 0)
    std::cout << "segments in /dev/shm " << segments_named_in_dev_shm() << "\n";
  const bool adopting = adopt == "all" || (adopt == "odd" && group.rank() % 2 == 1);
  std::vector<at::Tensor> results;
  int adopted = 0;
  int tensors = 0;
  for (const devcheck::testing::ReduceCase& c : devcheck::testing::reduce_cases()) {
    for (int round = 0; round < 3; ++round) {
      at::Tensor t = devcheck::testing::case_input(c, group.rank(), round);
      ++tensors;
      if (adopting) {
        const void* before = t.data_ptr();
        const at::Tensor view = t.view({-1});  // made before: sees the moved memory too
        if (local->adopt(t) && t.data_ptr() != before && view.data_ptr() == t.data_ptr() &&
            at::equal(t, devcheck::testing::case_input(c, group.rank(), round))) {
          ++adopted;
        }
      }
      local->all_reduce_mean(t);
      results.push_back(t.clone());  // t's arena block is freed for the next case
    }
  }
  if (adopting) std::cout << "adopted " << adopted << " of " << tensors << "\n";
  const devcheck::GradientSyncTime time = local->time();
  std::cout << "timed " << time.all_reduces << " all-reduces, "
            << (time.waiting_seconds >= 0 ? "waiting" : "NEGATIVE waiting") << ", "
            << (time.averaging_seconds > 0 ? "averaging" : "NO averaging") << "\n";
  torch::save(results, out + "/rank" + std::to_string(group.rank()) + ".pt");
  group.barrier();
  return 0;
}

constexpr int64_t kBlock = 1024;

int arena() {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  const int64_t rank0_pid = [&] {
    at::Tensor pid = at::full({1}, static_cast<int64_t>(::getpid()), at::kLong);
    group.broadcast(pid, 0);
    return pid.item<int64_t>();
  }();
  std::unique_ptr<LocalAllReduce> local =
      connect_or_say(group, 1024, static_cast<size_t>(3 * kBlock) * sizeof(float));
  if (!local) return 4;
  const auto say = [](const std::string& what, bool yes) {
    std::cout << what << (yes ? " yes" : " no") << "\n";
  };
  std::cout << "arena " << local->arena_capacity() << "\n";
  // Blocks of kBlock floats (4096 bytes), the arena three of them.
  const auto floats = [](int64_t n) { return at::arange(n, at::kFloat); };
  at::Tensor whole = floats(2 * kBlock);
  say("adopts a slice", local->adopt(whole.slice(0, kBlock)));
  say("adopts a strided view", local->adopt(floats(2 * kBlock).view({kBlock, 2}).t()));
  say("adopts a meta tensor", local->adopt(at::empty({16}, at::device(c10::kMeta))));
  say("adopts more than the arena", local->adopt(floats(3 * kBlock + 1)));
  at::Tensor a = floats(kBlock);
  at::Tensor b = floats(kBlock);
  at::Tensor c = floats(kBlock);
  say("adopts three blocks", local->adopt(a) && local->adopt(b) && local->adopt(c));
  say("adopts a fourth", local->adopt(floats(1)));
  say("adopts an adopted one again", local->adopt(b));
  b = at::Tensor();
  at::Tensor d = floats(kBlock);
  say("adopts into a freed block", local->adopt(d));
  a = at::Tensor();
  c = at::Tensor();
  d = at::Tensor();
  at::Tensor all = floats(3 * kBlock);
  say("adopts the whole arena once every block is freed", local->adopt(all));
  say("keeps the values", at::equal(all, floats(3 * kBlock)));
  std::cout << "with the LocalAllReduce: mappings " << segment_mappings(rank0_pid) << "\n";
  group.barrier();
  local.reset();
  std::cout << "after the LocalAllReduce: mappings " << segment_mappings(rank0_pid) << "\n";
  say("the adopted tensor still reads", at::equal(all, floats(3 * kBlock)));
  all = at::Tensor();
  std::cout << "after the last adopted storage: mappings " << segment_mappings(rank0_pid) << "\n";
  group.barrier();
  return 0;
}

int declines(const std::string& mode) {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  std::string declined;
  const bool huge = mode == "huge" || mode == "huge-arena";
  size_t capacity = 1024;
  size_t arena = 0;
  if (huge) {
    // Each slot (huge) or each arena (huge-arena) as large as all free space
    // in /dev/shm.
    struct statvfs fs {};
    if (::statvfs("/dev/shm", &fs) != 0 || fs.f_blocks == 0) {
      std::cout << "/dev/shm has no size limit" << std::endl;
      return 0;
    }
    (mode == "huge" ? capacity : arena) = static_cast<size_t>(fs.f_bavail) * fs.f_frsize;
  }
  const std::unique_ptr<LocalAllReduce> local = LocalAllReduce::connect(
      group, capacity, arena, /*wanted=*/huge || group.rank() != 1, &declined);
  std::cout << (local ? "connected, arena " + std::to_string(local->arena_capacity())
                      : "declined: " + declined)
            << std::endl;
  group.barrier();
  return 0;
}

int mismatch() {
  ProcessGroup group = ProcessGroup::from_env(ProcessGroupOptions().device("cpu"));
  const std::unique_ptr<LocalAllReduce> local = connect_or_say(group, 1024, 0);
  if (!local) return 4;
  local->all_reduce_mean(at::ones({int64_t{16} * (group.rank() + 1)}));
  std::cout << "averaged" << std::endl;
  return 0;
}

int absent(bool alive) {
  ProcessGroup group = ProcessGroup::from_env(
      ProcessGroupOptions().device("cpu").timeout(std::chrono::milliseconds(alive ? 60000 : 5000)));
  const std::unique_ptr<LocalAllReduce> local = connect_or_say(group, 1024, 0);
  if (!local) return 4;
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
    if (mode == "reduce" && argc > 3) return reduce(argv[2], argv[3]);
    if (mode == "arena") return arena();
    if (mode == "off" || mode == "huge" || mode == "huge-arena") return declines(mode);
    if (mode == "mismatch") return mismatch();
    if (mode == "absent" || mode == "dies") return absent(mode == "dies");
    std::cerr
        << "usage: local_all_reduce_worker reduce OUT_DIR none|all|odd | arena | off | huge | "
           "huge-arena | mismatch | absent | dies\n";
    return 2;
  });
}
