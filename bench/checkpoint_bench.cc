// Checkpoint speed on a ~1 GB checkpoint of 200 tensors made by real
// torch.save: inspect, remap --to cpu and load_tensors against cp of the same
// file, Python's torch.load(map_location="cpu") and torch.load + torch.save.
// Targets: inspect under 10 ms; remap within 1.5x of cp and at least 5x faster
// than load + save; load_tensors at least 2x faster than torch.load, with the
// file in the page cache (warm) and with it dropped from there before each run
// (cold), both sides; cold, load_tensors within 1.25x of the disk's floor (the
// bare file read through a mapping). The file lives in a temporary folder under the build
// tree and is deleted at exit.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "devcheck/checkpoint.h"
#include "ratio.h"

// Linux 5.14's madvise advice; older libc headers lack the name.
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace {

namespace fs = std::filesystem;

fs::path& work_dir() {
  static fs::path dir;
  return dir;
}
std::string big() { return (work_dir() / "big.pt").string(); }

// Runs the Python helper; returns the seconds it printed last.
double python_seconds(const std::string& args) {
  const std::string cmd = std::string(DEVCHECK_PYTHON) + " " + DEVCHECK_SOURCE_DIR +
                          "/bench/checkpoint_bench.py " + args;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return -1;
  char line[256] = {0};
  double seconds = -1;
  while (std::fgets(line, sizeof line, pipe) != nullptr) seconds = std::atof(line);
  ::pclose(pipe);
  return seconds;
}

enum class Cache { kWarm, kCold };

// Fraction of `path`'s pages in the page cache (mincore over a mapping).
double resident_fraction(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const auto size = static_cast<std::size_t>(fs::file_size(path));
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((size + page - 1) / page);
  const bool ok = ::mincore(map, size, in.data()) == 0;
  ::munmap(map, size);
  if (!ok || in.empty()) return -1;
  const auto resident = std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; });
  return static_cast<double>(resident) / static_cast<double>(in.size());
}

// Puts the whole file in the page cache (warm) or drops it from there (cold:
// written back, then POSIX_FADV_DONTNEED, which drops the clean pages no
// process maps), and returns the fraction resident afterwards.
double set_page_cache(const std::string& path, Cache cache) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (cache == Cache::kCold) {
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  } else {
    std::vector<char> buffer(std::size_t{8} << 20);
    off_t at = 0;
    ssize_t n = 0;
    while ((n = ::pread(fd, buffer.data(), buffer.size(), at)) > 0) at += n;
  }
  ::close(fd);
  return resident_fraction(path);
}

// Records the page-cache state each timed run started from.
class CacheCounters {
 public:
  void add(double fraction) {
    low_ = std::min(low_, fraction);
    high_ = std::max(high_, fraction);
  }
  void report(benchmark::State& state) const {
    state.counters["cached_min"] = low_;
    state.counters["cached_max"] = high_;
  }

 private:
  double low_ = 1e9;
  double high_ = -1e9;
};

void BM_CopyFile(benchmark::State& state) {
  const std::string out = (work_dir() / "copy.pt").string();
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(out);
    ::sync();  // each copy starts with no dirty pages to write back (the previous ones' or remap's)
    state.ResumeTiming();
    fs::copy_file(big(), out);
  }
  fs::remove(out);
}
BENCHMARK(BM_CopyFile)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Inspect(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(devcheck::Checkpoint::open(big()).entries().size());
}
BENCHMARK(BM_Inspect)->Unit(benchmark::kMillisecond)->Iterations(20);

// The 10 ms budget of inspect, as an anchor for its ratio.
void BM_InspectBudget10ms(benchmark::State& state) {
  for (auto _ : state) state.SetIterationTime(0.010);
}
BENCHMARK(BM_InspectBudget10ms)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_RemapToCpu(benchmark::State& state) {
  const std::string out = (work_dir() / "remapped.pt").string();
  const auto options =
      devcheck::RemapOptions().map_location(devcheck::MapLocation::to(c10::Device("cpu")));
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(out);
    ::sync();  // as for the copy
    state.ResumeTiming();
    devcheck::remap(big(), out, options);
  }
  fs::remove(out);
}
BENCHMARK(BM_RemapToCpu)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_LoadTensors(benchmark::State& state, Cache cache) {
  CacheCounters counters;
  for (auto _ : state) {
    state.PauseTiming();
    counters.add(set_page_cache(big(), cache));
    state.ResumeTiming();
    benchmark::DoNotOptimize(
        devcheck::load_tensors(big(), devcheck::MapLocation::to(c10::Device("cpu"))).size());
  }
  counters.report(state);
}
BENCHMARK_CAPTURE(BM_LoadTensors, warm, Cache::kWarm)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_CAPTURE(BM_LoadTensors, cold, Cache::kCold)->Unit(benchmark::kMillisecond)->Iterations(5);

// The disk's floor for a load: the whole file read into a private mapping of
// it, with the advice load_tensors gives, and nothing else (no parsing, no
// tensors). load_tensors cold against this says how much of a cold load is
// the disk and how much is load_tensors' own work.
void BM_MappedRead(benchmark::State& state, Cache cache) {
  CacheCounters counters;
  for (auto _ : state) {
    state.PauseTiming();
    counters.add(set_page_cache(big(), cache));
    state.ResumeTiming();
    const int fd = ::open(big().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      state.SkipWithError("cannot open the checkpoint");
      break;
    }
    const auto size = static_cast<std::size_t>(fs::file_size(big()));
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) {
      state.SkipWithError("cannot map the checkpoint");
      break;
    }
    ::madvise(map, size, MADV_HUGEPAGE);
    if (::madvise(map, size, MADV_POPULATE_READ) != 0) {
      state.SkipWithError("MADV_POPULATE_READ failed (Linux before 5.14?)");
    }
    ::munmap(map, size);
  }
  counters.report(state);
}
BENCHMARK_CAPTURE(BM_MappedRead, cold, Cache::kCold)->Unit(benchmark::kMillisecond)->Iterations(5);

// Python's own timing of torch.load alone (not its start or `import torch`).
void BM_PythonTorchLoad(benchmark::State& state, Cache cache, const char* mode) {
  CacheCounters counters;
  for (auto _ : state) {
    counters.add(set_page_cache(big(), cache));
    state.SetIterationTime(python_seconds(std::string(mode) + " " + big()));
  }
  counters.report(state);
}
BENCHMARK_CAPTURE(BM_PythonTorchLoad, warm, Cache::kWarm, "load")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK_CAPTURE(BM_PythonTorchLoad, cold, Cache::kCold, "load")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_PythonTorchLoad, weights_only_warm, Cache::kWarm, "load-weights-only")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

void BM_PythonLoadSave(benchmark::State& state) {
  const std::string out = (work_dir() / "resaved.pt").string();
  for (auto _ : state) {
    fs::remove(out);
    state.SetIterationTime(python_seconds("loadsave " + big() + " " + out));
  }
  fs::remove(out);
}
BENCHMARK(BM_PythonLoadSave)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

int main(int argc, char** argv) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  work_dir() = self.parent_path() / ("checkpoint-bench-" + std::to_string(::getpid()));
  fs::create_directories(work_dir());
  std::printf("making a ~1 GB checkpoint of 200 tensors with torch.save in %s ...\n",
              work_dir().c_str());
  std::fflush(stdout);
  python_seconds("make " + big());
  if (!fs::exists(big())) {
    std::fprintf(stderr, "checkpoint_bench: torch.save did not write %s\n", big().c_str());
    fs::remove_all(work_dir());
    return 2;
  }
  std::printf("%s: %.0f MB\n", big().c_str(), static_cast<double>(fs::file_size(big())) / 1e6);
  std::string thp = "unknown";
  if (std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    char line[128] = {0};
    if (std::fgets(line, sizeof line, f) != nullptr)
      thp = std::string(line, std::strcspn(line, "\n"));
    std::fclose(f);
  }
  fmt::print(
      "conditions: {} intra-op thread(s) (load_tensors and torch.load read on one), {} hardware "
      "threads, {}, transparent huge pages: {}\n"
      "page cache: each load_tensors and torch.load run starts warm (the whole file read just "
      "before) or cold (dropped with POSIX_FADV_DONTNEED just before), as its name says; "
      "cached_min/cached_max: the fraction of the file in the page cache at those starts\n",
      at::get_num_threads(), std::thread::hardware_concurrency(),
      devcheck::bench::load_average_text(), thp);
  std::fflush(stdout);
  const int rc = devcheck::bench::run_and_print_ratios(
      argc, argv,
      {{"BM_Inspect/iterations:20", "BM_InspectBudget10ms/iterations:1/manual_time", 1.0},
       {"BM_RemapToCpu/iterations:3", "BM_CopyFile/iterations:3", 1.5},
       {"BM_RemapToCpu/iterations:3", "BM_PythonLoadSave/iterations:2/manual_time", 0.2},
       {"BM_LoadTensors/warm/iterations:5", "BM_PythonTorchLoad/warm/iterations:2/manual_time", 2.0,
        /*speedup=*/true},
       {"BM_LoadTensors/cold/iterations:5", "BM_PythonTorchLoad/cold/iterations:3/manual_time", 2.0,
        /*speedup=*/true},
       {"BM_LoadTensors/cold/iterations:5", "BM_MappedRead/cold/iterations:5", 1.25},
       {"BM_LoadTensors/warm/iterations:5",
        "BM_PythonTorchLoad/weights_only_warm/iterations:2/manual_time", 2.0, /*speedup=*/true}});
  fmt::print("after the run: {}\n", devcheck::bench::load_average_text());
  fs::remove_all(work_dir());
  return rc;
}
