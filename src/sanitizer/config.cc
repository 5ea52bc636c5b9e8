#include "sanitizer/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "devcheck/error.h"

namespace devcheck::sanitizer {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// 0 for an off word, 1 for an on word, -1 for anything else.
int switch_value(const std::string& value) {
  const std::string t = lower(value);
  if (t == "0" || t == "off" || t == "false" || t == "no") return 0;
  if (t == "1" || t == "on" || t == "true" || t == "yes") return 1;
  return -1;
}

[[noreturn]] void reject(const char* variable, const std::string& value, const char* accepted) {
  throw InvalidArgumentError(fmt::format(
      "[devcheck] {}='{}' is not understood: expected {}\nfix: set {} to one of those, or unset it",
      variable, value, accepted, variable));
}

// A variable that holds a path, or off.
std::string path_value(const char* variable, const std::string& value) {
  const int s = switch_value(value);
  if (s == 0) return "";
  if (s == 1) reject(variable, value, "a file path, or off/0/false/no");
  return value;
}

std::mutex& config_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

ProcessConfig& stored_config() {
  static auto* c = new ProcessConfig();  // never destroyed: read by the exit path
  return *c;
}

}  // namespace

bool parse_switch(const char* variable, const std::string& value) {
  const int s = switch_value(value);
  if (s < 0) reject(variable, value, "off, 0, false, no, or on, 1, true, yes (any case)");
  return s == 1;
}

ProcessConfig read_process_config(const EnvLookup& lookup) {
  const auto get = [&](const char* name) -> std::string {
    const char* v = lookup(name);
    return v != nullptr ? std::string(v) : std::string();
  };
  ProcessConfig c;
  if (const std::string v = get(kEnvSanitize); !v.empty()) {
    const int s = switch_value(v);
    if (s < 0) {
      const std::string t = lower(v);
      if (t != "report" && t != "warn" && t != "fail") {
        reject(kEnvSanitize, v,
               "off, 0, false, no; on, 1, true, yes (= report); report, warn or fail (any case)");
      }
      c.options.mode(parse_sanitizer_mode(t));
    }
    c.enabled = s != 0;
  }
  if (const std::string v = get(kEnvProvenance); !v.empty()) {
    c.options.provenance(parse_switch(kEnvProvenance, v));
  }
  if (const std::string v = get(kEnvJson); !v.empty()) c.options.json_path(path_value(kEnvJson, v));
  if (const std::string v = get(kEnvTrace); !v.empty()) {
    c.options.trace_path(path_value(kEnvTrace, v));
  }
  if (const std::string v = get(kEnvReportDir); !v.empty()) {
    c.report_dir = path_value(kEnvReportDir, v);
    if (!c.report_dir.empty()) c.role = Role::kRunChild;
  }
  return c;
}

ProcessConfig read_process_config() {
  return read_process_config([](const char* name) { return std::getenv(name); });
}

std::vector<std::string> process_config_environment(const ProcessConfig& config) {
  const SanitizerOptions& o = config.options;
  std::vector<std::string> env;
  env.push_back(fmt::format("{}={}", kEnvSanitize, config.enabled ? to_string(o.mode()) : "off"));
  env.push_back(fmt::format("{}={}", kEnvProvenance, o.provenance() ? "on" : "off"));
  env.push_back(fmt::format("{}={}", kEnvJson, o.json_path().empty() ? "off" : o.json_path()));
  env.push_back(fmt::format("{}={}", kEnvTrace, o.trace_path().empty() ? "off" : o.trace_path()));
  env.push_back(fmt::format("{}={}", kEnvReportDir,
                            config.role == Role::kRunChild ? config.report_dir : "off"));
  return env;
}

ProcessConfig process_config() {
  const std::lock_guard<std::mutex> lock(config_mutex());
  return stored_config();
}

void set_process_config(const ProcessConfig& config) {
  const std::lock_guard<std::mutex> lock(config_mutex());
  stored_config() = config;
}

}  // namespace devcheck::sanitizer
