#include "files.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace devcheck::lint::detail {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// fnmatch with `**/` meaning any number of folders.
bool glob_match(const std::string& pattern, const std::string& path) {
  if (fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0) return true;
  if (pattern.rfind("**/", 0) == 0) {
    const std::string rest = pattern.substr(3);
    for (std::size_t at = 0; at != std::string::npos; at = path.find('/', at + 1)) {
      const std::string tail = at == 0 ? path : path.substr(at + 1);
      if (fnmatch(rest.c_str(), tail.c_str(), FNM_PATHNAME) == 0) return true;
      if (at == 0 && path.find('/') == std::string::npos) break;
    }
  }
  return false;
}

void add_gitignore(const fs::path& dir, std::vector<IgnoreRule>& rules) {
  std::error_code ec;
  const fs::path file = dir / ".gitignore";
  if (!fs::is_regular_file(file, ec)) return;
  std::vector<IgnoreRule> more = parse_gitignore(read_text(file), dir.string());
  rules.insert(rules.end(), more.begin(), more.end());
}

bool is_python(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".py" || ext == ".pyi" || ext == ".ipynb";
}

void walk(const fs::path& dir, bool gitignore, std::vector<IgnoreRule> rules,
          std::vector<std::string>& out, int depth) {
  if (depth > 64) return;
  if (gitignore) add_gitignore(dir, rules);
  std::error_code ec;
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    entries.push_back(*it);
  }
  for (const fs::directory_entry& entry : entries) {
    const std::string name = entry.path().filename().string();
    const bool is_dir = entry.is_directory(ec) && !entry.is_symlink(ec);
    if (is_dir && (name == ".git" || name == "__pycache__")) continue;
    if (gitignore && ignored(rules, entry.path().string(), is_dir)) continue;
    if (is_dir) {
      walk(entry.path(), gitignore, rules, out, depth + 1);
    } else if (is_python(entry.path()) && entry.is_regular_file(ec)) {
      out.push_back(entry.path().string());
    }
  }
}

}  // namespace

std::vector<IgnoreRule> parse_gitignore(const std::string& text, const std::string& base) {
  std::vector<IgnoreRule> rules;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    IgnoreRule rule;
    rule.base = base;
    if (line[0] == '!') {
      rule.negate = true;
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      rule.dir_only = true;
      line.pop_back();
    }
    rule.anchored = line.find('/') != std::string::npos;
    if (!line.empty() && line[0] == '/') line.erase(0, 1);
    if (line.empty()) continue;
    rule.pattern = line;
    rules.push_back(std::move(rule));
  }
  return rules;
}

bool ignored(const std::vector<IgnoreRule>& rules, const std::string& path, bool is_dir) {
  bool result = false;
  const std::string name = fs::path(path).filename().string();
  for (const IgnoreRule& rule : rules) {
    if (rule.dir_only && !is_dir) continue;
    if (path.size() <= rule.base.size() || path.compare(0, rule.base.size(), rule.base) != 0) {
      continue;
    }
    std::string relative = path.substr(rule.base.size());
    if (!relative.empty() && relative[0] == '/') relative.erase(0, 1);
    const bool match = rule.anchored ? glob_match(rule.pattern, relative)
                                     : fnmatch(rule.pattern.c_str(), name.c_str(), 0) == 0;
    if (match) result = !rule.negate;
  }
  return result;
}

std::vector<std::string> collect_files(const std::vector<std::string>& paths, bool gitignore,
                                       std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const std::string& given : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(given, ec);
    if (ec || !fs::exists(status)) {
      errors.push_back(given + ": no such file or folder");
      continue;
    }
    if (!fs::is_directory(status)) {
      out.push_back(given);
      continue;
    }
    std::vector<IgnoreRule> rules;
    if (gitignore) {
      // The .gitignore files above the folder, up to the repository's root.
      std::vector<fs::path> parents;
      const fs::path start = fs::absolute(given, ec).lexically_normal();
      for (fs::path p = start.parent_path(); !p.empty(); p = p.parent_path()) {
        parents.push_back(p);
        if (fs::exists(p / ".git", ec) || p == p.root_path()) break;
      }
      if (!fs::exists(start / ".git", ec) &&
          (parents.empty() || fs::exists(parents.back() / ".git", ec))) {
        for (auto it = parents.rbegin(); it != parents.rend(); ++it) add_gitignore(*it, rules);
      }
      // Rules hold absolute bases; walk absolute paths and report as given.
      std::vector<std::string> found;
      walk(start, gitignore, rules, found, 0);
      for (const std::string& f : found) {
        // Relative to the folder however it was written (`dir`, `dir/`, `/`).
        out.push_back(
            (fs::path(given) / fs::path(f).lexically_relative(start)).lexically_normal().string());
      }
      continue;
    }
    walk(given, false, rules, out, 0);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace devcheck::lint::detail
