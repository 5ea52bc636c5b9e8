#include "process/environment.h"

#include <algorithm>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace devcheck::detail {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::vector<std::string> environment_with(const std::vector<std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('=') + 1);
    const bool replaced = std::any_of(set.begin(), set.end(),
                                      [&](const std::string& s) { return starts_with(s, key); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

std::vector<std::string> environment_without(const std::vector<std::string>& prefixes) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const bool dropped = std::any_of(prefixes.begin(), prefixes.end(),
                                     [&](const std::string& p) { return starts_with(entry, p); });
    if (!dropped) env.push_back(entry);
  }
  return env;
}

}  // namespace devcheck::detail
