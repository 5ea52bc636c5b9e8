#pragma once
// Runs the registered benchmarks, then prints each one's time as a ratio to an
// anchor measured in the same run (this machine is shared and noisy, so only
// ratios within one run mean anything).

#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): getloadavg is not in <cstdlib>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace devcheck::bench {

class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type == Run::RT_Iteration && run.iterations > 0) {
        // Per-item time when the benchmark set items processed, else per iteration.
        double ns =
            run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
        auto items = run.counters.find("items_per_second");
        if (items != run.counters.end() && items->second.value > 0) ns = 1e9 / items->second.value;
        ns_[run.benchmark_name()] = ns;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double ns(const std::string& name) const {
    auto it = ns_.find(name);
    return it == ns_.end() ? -1.0 : it->second;
  }

 private:
  std::map<std::string, double> ns_;
};

// "12.3 ns", "4.25 ms", "1.22 s".
inline std::string human_time(double ns) {
  if (ns >= 1e9) return fmt::format("{:.3g} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.3g} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3g} us", ns / 1e3);
  return fmt::format("{:.3g} ns", ns);
}

// One line per check. A time ratio: "name / anchor = 0.12 (target <= 1.00): PASS";
// a speedup (`speedup` set): "anchor / name = 3.10 (target >= 2.00): PASS".
struct RatioCheck {
  std::string name;
  std::string anchor;
  double target;         // name / anchor must be <= target; with `speedup`, anchor / name >= target
  bool speedup = false;  // state the check as how many times faster than the anchor `name` is
};

// "load average 1.02 0.80 0.55" (or "unknown"), for the conditions a benchmark prints.
inline std::string load_average_text() {
  double load[3] = {-1, -1, -1};
  if (getloadavg(load, 3) != 3) return "load average unknown";
  return fmt::format("load average {:.2f} {:.2f} {:.2f}", load[0], load[1], load[2]);
}

inline int run_and_print_ratios(int argc, char** argv, const std::vector<RatioCheck>& checks) {
  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  bool all_pass = true;
  fmt::print("\nratios (same run):\n");
  for (const auto& check : checks) {
    const double a = reporter.ns(check.name);
    const double b = reporter.ns(check.anchor);
    if (a < 0 || b <= 0) {
      fmt::print("  {} / {}: not measured\n", check.name, check.anchor);
      all_pass = false;
      continue;
    }
    if (check.speedup) {
      const double speedup = b / a;
      const bool pass = speedup >= check.target;
      all_pass = all_pass && pass;
      fmt::print("  {} / {} = {:.2f} ({} / {}; target >= {:.2f}): {}\n", check.anchor, check.name,
                 speedup, human_time(b), human_time(a), check.target, pass ? "PASS" : "FAIL");
      continue;
    }
    const double ratio = a / b;
    const bool pass = ratio <= check.target;
    all_pass = all_pass && pass;
    fmt::print("  {} / {} = {:.3f} ({} / {}; target <= {:.2f}): {}\n", check.name, check.anchor,
               ratio, human_time(a), human_time(b), check.target, pass ? "PASS" : "FAIL");
  }
  benchmark::Shutdown();
  return all_pass ? 0 : 1;
}

}  // namespace devcheck::bench
