#pragma once
// `[tool.devcheck.lint]` in pyproject.toml (docs/lint.md, "Configuration"),
// found upward from each file. Internal.

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace devcheck::lint::detail {

struct Config {
  // The folder of the pyproject.toml; globs are relative to it.
  std::string root;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  // Globs of files never linted.
  std::vector<std::string> exclude;
  // Glob -> rules ignored in the files it matches.
  std::vector<std::pair<std::string, std::vector<std::string>>> per_file_ignores;
};

// The `[tool.devcheck.lint]` table of a pyproject.toml's text (a TOML subset:
// strings, arrays of strings, one inline table or a
// `[tool.devcheck.lint.per-file-ignores]` table). nullptr when it has none.
std::unique_ptr<Config> parse_config(const std::string& toml, const std::string& root);

// Whether `glob` (relative to `root`) matches `path`.
bool config_glob_match(const Config& config, const std::string& glob, const std::string& path);

// The rules `config` ignores in `path` (its ignore list plus matching
// per-file ignores), and whether it excludes `path` altogether.
std::vector<std::string> ignored_rules(const Config& config, const std::string& path);
bool excluded(const Config& config, const std::string& path);

// Finds and caches the nearest pyproject.toml with a [tool.devcheck.lint]
// table above each file. Thread-safe.
class ConfigFinder {
 public:
  // The configuration for `path`, or nullptr when none applies.
  const Config* find(const std::string& path);

 private:
  const Config* find_in(const std::string& dir);
  std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<Config>> by_dir_;
  std::unordered_map<std::string, const Config*> resolved_;
};

}  // namespace devcheck::lint::detail
