// The public sanitizer API: options, the RAII Sanitizer, explain().
#include "devcheck/sanitizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "devcheck/error.h"
#include "sanitizer/config.h"
#include "sanitizer/engine.h"
#include "sanitizer/process.h"
#include "sanitizer/report.h"

namespace devcheck {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

SanitizerMode parse_sanitizer_mode(const std::string& text) {
  const std::string t = lower(text);
  if (t == "report") return SanitizerMode::kReport;
  if (t == "warn") return SanitizerMode::kWarn;
  if (t == "fail") return SanitizerMode::kFail;
  throw InvalidArgumentError(fmt::format(
      "[devcheck] unknown sanitizer mode '{}': expected report, warn or fail\nfix: pass one of "
      "report (summary at exit), warn (print each finding when it happens), fail (as warn, and "
      "exit status 1 on a mismatch)",
      text));
}

const char* to_string(SanitizerMode mode) {
  switch (mode) {
    case SanitizerMode::kWarn:
      return "warn";
    case SanitizerMode::kFail:
      return "fail";
    default:
      return "report";
  }
}

SanitizerOptions SanitizerOptions::from_env() { return sanitizer::read_process_config().options; }

Sanitizer::Sanitizer(SanitizerOptions options) : options_(std::move(options)) {
  sanitizer::Engine::get().start(options_);
  if (options_.mode() == SanitizerMode::kFail) sanitizer::arm_fail_exit();
}

Sanitizer::~Sanitizer() {
  auto& engine = sanitizer::Engine::get();
  engine.stop();
  if (options_.json_path().empty() && options_.trace_path().empty() && !options_.print_summary()) {
    return;
  }
  try {
    const SanitizerReport r = sanitizer::build_report(engine);
    if (!options_.json_path().empty()) {
      sanitizer::write_file_atomically(options_.json_path(), r.to_json(), "sanitizer report");
    }
    if (!options_.trace_path().empty()) r.write_trace(options_.trace_path());
    if (options_.print_summary() && !r.ok()) sanitizer::Engine::warn(r.to_text());
  } catch (const std::exception& e) {
    sanitizer::Engine::warn(std::string("[devcheck] sanitizer: ") + e.what());
  }
}

SanitizerReport Sanitizer::report() const {
  return sanitizer::build_report(sanitizer::Engine::get());
}

void Sanitizer::clear() { sanitizer::Engine::get().clear(); }

void Sanitizer::clear_findings() { sanitizer::Engine::get().clear_findings(); }

bool Sanitizer::active() { return sanitizer::Engine::get().active(); }

std::string explain(const c10::Error& error) {
  std::string message = error.what_without_backtrace();
  const auto newline = message.find('\n');
  const std::string first_line =
      newline == std::string::npos ? message : message.substr(0, newline);
  const long index = sanitizer::last_mismatch_on_this_thread();
  // A finding cleared since (Sanitizer::clear, clear_findings) is none.
  const auto record = index < 0 ? sanitizer::MismatchRecord{}
                                : sanitizer::Engine::get().mismatch(static_cast<size_t>(index));
  if (record.op.empty()) {
    return fmt::format(
        "{}\n[devcheck] the sanitizer saw no device mismatch on this thread{}", first_line,
        Sanitizer::active() ? ""
                            : "; run under devcheck::Sanitizer (or `devcheck run`) to learn "
                              "which tensor is stray and where it was made");
  }
  const auto finding = sanitizer::make_mismatch_finding(record);
  return first_line + "\n" + finding.message;
}

}  // namespace devcheck
