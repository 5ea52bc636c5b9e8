// devcheck lint [PATH...] [--format text|json|sarif] [--select/--ignore IDS]
// [--statistics] [--fix | --diff] [-j N]: device bugs in Python sources,
// found without running them (docs/lint.md).
#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <vector>

#include "command.h"
#include "devcheck/format/error.h"
#include "devcheck/lint.h"
#include "process/cores.h"

namespace devcheck::cli {
namespace {

struct LintArgs {
  std::vector<std::string> paths{"."}, select, ignore;
  std::string format = "text";
  bool statistics = false, fix = false, diff = false;
  unsigned jobs = 0;
};

void check_rule_ids(const std::vector<std::string>& ids, const char* flag) {
  for (const std::string& id : ids) {
    bool known = id == "ALL";
    for (const lint::RuleInfo& r : lint::rules()) known = known || r.id.substr(0, id.size()) == id;
    if (!known) {
      throw format::InvalidArgumentError(
          fmt::format("[devcheck] lint {}: no rule is '{}' (rules are {} to {})", flag, id,
                      lint::rules().front().id, lint::rules().back().id));
    }
  }
}

Runner setup_lint(CLI::App& sub, Streams& io) {
  auto a = std::make_shared<LintArgs>();
  sub.add_option("PATH", a->paths, "Python files and folders (default: .)");
  sub.add_option("--format", a->format, "text, json or sarif")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  sub.add_option("--select", a->select, "Only these rules or prefixes (e.g. DC105,DC11)")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub.add_option("--ignore", a->ignore, "Never these rules or prefixes")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub.add_flag("--statistics", a->statistics, "Print the number of findings per rule");
  auto* fix = sub.add_flag("--fix", a->fix, "Apply the safe fixes (DC102 DC109 DC110 DC119)");
  sub.add_flag("--diff", a->diff, "Show the safe fixes as a diff; change nothing")->excludes(fix);
  sub.add_option("-j,--jobs", a->jobs, "Files linted at once (default: every core)");
  sub.footer(
      "Exit status: 0 no findings, 1 findings (or, with --diff, fixes to make), "
      "2 bad usage or unreadable input.");
  return [a, &io]() {
    check_rule_ids(a->select, "--select");
    check_rule_ids(a->ignore, "--ignore");
    lint::LintOptions options;
    options.select = a->select;
    options.ignore = a->ignore;
    options.jobs = a->jobs != 0 ? a->jobs : static_cast<unsigned>(detail::usable_cores());
    lint::LintReport report;
    bool changes = false;
    if (a->fix || a->diff) {
      lint::FixResult fixed = lint::fix_paths(a->paths, options, /*write=*/a->fix);
      if (a->diff) io.out << fixed.diff;
      for (const std::string& path : fixed.changed) {
        io.err << (a->fix ? "fixed " : "would fix ") << path << "\n";
      }
      changes = !fixed.changed.empty();
      report = std::move(fixed.remaining);
    } else {
      report = lint::lint_paths(a->paths, options);
    }
    for (const std::string& error : report.errors()) io.err << "devcheck lint: " << error << "\n";
    if (a->diff) {
      // The diff is the output; findings stay for a plain run.
    } else if (a->format == "json") {
      io.out << report.to_json() << "\n";
    } else if (a->format == "sarif") {
      io.out << report.to_sarif() << "\n";
    } else {
      io.out << report.to_text();
    }
    if (a->statistics) io.out << report.statistics();
    if (report.has_errors()) return kExitBadInput;
    if (a->diff) return changes ? kExitFindings : kExitOk;
    return report.has_findings() ? kExitFindings : kExitOk;
  };
}

const CommandRegistrar kLint("lint", "Find device bugs in Python sources (never runs them)", 25,
                             setup_lint);

}  // namespace
}  // namespace devcheck::cli
