// Checkpoint speed on a ~1 GB checkpoint of 200 tensors made by real
// torch.save: inspect, remap --to cpu and load_tensors against cp of the same
// file, Python's torch.load(map_location="cpu") and torch.load + torch.save.
// Targets: inspect under 10 ms; remap within 1.5x of cp and at least 5x faster
// than load + save; load_tensors no slower than torch.load. The file lives in
// a temporary folder under the build tree and is deleted at exit.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "devcheck/checkpoint.h"
#include "ratio.h"

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

void BM_LoadTensors(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        devcheck::load_tensors(big(), devcheck::MapLocation::to(c10::Device("cpu"))).size());
  }
}
BENCHMARK(BM_LoadTensors)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PythonTorchLoad(benchmark::State& state) {
  for (auto _ : state) state.SetIterationTime(python_seconds("load " + big()));
}
BENCHMARK(BM_PythonTorchLoad)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);

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
  std::printf("%s: %.0f MB\n", big().c_str(), fs::file_size(big()) / 1e6);
  const int rc = devcheck::bench::run_and_print_ratios(
      argc, argv,
      {{"BM_Inspect/iterations:20", "BM_InspectBudget10ms/iterations:1/manual_time", 1.0},
       {"BM_RemapToCpu/iterations:3", "BM_CopyFile/iterations:3", 1.5},
       {"BM_RemapToCpu/iterations:3", "BM_PythonLoadSave/iterations:2/manual_time", 0.2},
       {"BM_LoadTensors/iterations:3", "BM_PythonTorchLoad/iterations:2/manual_time", 1.0}});
  fs::remove_all(work_dir());
  return rc;
}
