#pragma once
// Which files `devcheck lint PATH...` reads: the files named, and the Python
// files under the folders named, minus what .gitignore files exclude. Internal.

#include <string>
#include <vector>

namespace devcheck::lint::detail {

// One .gitignore line, relative to the folder `base` that holds it.
struct IgnoreRule {
  std::string base;
  std::string pattern;
  bool negate = false;
  bool dir_only = false;
  bool anchored = false;  // has a '/' before its end: matched from `base`
};

// The rules of one .gitignore file (blank lines and comments skipped).
std::vector<IgnoreRule> parse_gitignore(const std::string& text, const std::string& base);

// Whether the last rule matching `path` (absolute) ignores it.
bool ignored(const std::vector<IgnoreRule>& rules, const std::string& path, bool is_dir);

// Files named in `paths` as they are; folders walked for *.py, *.pyi and
// *.ipynb, skipping .git and __pycache__ and, with `gitignore`, what the
// .gitignore files of the folders walked and their parents up to the
// repository root exclude. Missing paths are added to `errors`. Sorted, without duplicates.
std::vector<std::string> collect_files(const std::vector<std::string>& paths, bool gitignore,
                                       std::vector<std::string>& errors);

}  // namespace devcheck::lint::detail
