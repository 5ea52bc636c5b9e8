#include "config.h"

#include <fnmatch.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace devcheck::lint::detail {
namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

// The line without a trailing `# comment` (a '#' inside quotes stays).
std::string strip_comment(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

// Strings and the characters `[ ] { } =` of a TOML value, in order.
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const auto end = text.find(c, i + 1);
      if (end == std::string::npos) break;
      out.push_back("\"" + text.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '[' || c == ']' || c == '{' || c == '}' || c == '=') {
      out.emplace_back(1, c);
    } else if (c != ' ' && c != ',' && c != '\t' && c != '\n' && c != '\r') {
      // A bare key: read it whole.
      std::size_t end = i;
      while (end < text.size() && text[end] != ' ' && text[end] != '=' && text[end] != ',') ++end;
      out.push_back("\"" + text.substr(i, end - i));
      i = end - 1;
    }
  }
  return out;
}

std::vector<std::string> strings(const std::vector<std::string>& toks, std::size_t& i) {
  std::vector<std::string> out;
  if (i < toks.size() && toks[i] == "[") ++i;
  for (; i < toks.size() && toks[i] != "]"; ++i) {
    if (toks[i][0] == '"') out.push_back(toks[i].substr(1));
  }
  if (i < toks.size()) ++i;
  return out;
}

int bracket_balance(const std::string& s) {
  int balance = 0;
  char quote = 0;
  for (char c : s) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++balance;
    } else if (c == ']' || c == '}') {
      --balance;
    }
  }
  return balance;
}

}  // namespace

std::unique_ptr<Config> parse_config(const std::string& toml, const std::string& root) {
  std::unique_ptr<Config> config;
  std::istringstream in(toml);
  std::string line;
  std::string table;
  while (std::getline(in, line)) {
    line = trim(strip_comment(line));
    if (line.empty()) continue;
    if (line[0] == '[' && line.find('=') == std::string::npos) {
      table = trim(line.substr(line.rfind('[') + 1, line.find(']') - line.rfind('[') - 1));
      if ((table == "tool.devcheck.lint" || table == "tool.devcheck.lint.per-file-ignores") &&
          !config) {
        config = std::make_unique<Config>();
        config->root = root;
      }
      continue;
    }
    if (table != "tool.devcheck.lint" && table != "tool.devcheck.lint.per-file-ignores") continue;
    // A value may continue over lines until its brackets close.
    std::string more;
    while (bracket_balance(line) > 0 && std::getline(in, more)) {
      line += "\n" + trim(strip_comment(more));
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(line.substr(0, eq));
    if (key.size() >= 2 && (key[0] == '"' || key[0] == '\'')) key = key.substr(1, key.size() - 2);
    const std::vector<std::string> toks = tokens(line.substr(eq + 1));
    std::size_t i = 0;
    if (table == "tool.devcheck.lint.per-file-ignores") {
      config->per_file_ignores.emplace_back(key, strings(toks, i));
    } else if (key == "select") {
      config->select = strings(toks, i);
    } else if (key == "ignore") {
      config->ignore = strings(toks, i);
    } else if (key == "exclude") {
      config->exclude = strings(toks, i);
    } else if (key == "per-file-ignores" && !toks.empty() && toks[0] == "{") {
      for (i = 1; i + 1 < toks.size() && toks[i] != "}";) {
        const std::string glob = toks[i].substr(1);
        i += 2;  // the key and '='
        config->per_file_ignores.emplace_back(glob, strings(toks, i));
      }
    }
  }
  return config;
}

bool config_glob_match(const Config& config, const std::string& glob, const std::string& path) {
  std::error_code ec;
  const std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  std::string relative = fs::path(absolute).lexically_relative(config.root).string();
  if (relative.empty() || relative.rfind("..", 0) == 0) relative = absolute;
  if (fnmatch(glob.c_str(), relative.c_str(), 0) == 0) return true;
  // A folder's name excludes what is under it; a bare name matches any file so named.
  if (relative.rfind(glob + "/", 0) == 0) return true;
  return glob.find('/') == std::string::npos &&
         fnmatch(glob.c_str(), fs::path(relative).filename().c_str(), 0) == 0;
}

std::vector<std::string> ignored_rules(const Config& config, const std::string& path) {
  std::vector<std::string> out = config.ignore;
  for (const auto& [glob, rules] : config.per_file_ignores) {
    if (config_glob_match(config, glob, path)) out.insert(out.end(), rules.begin(), rules.end());
  }
  return out;
}

bool excluded(const Config& config, const std::string& path) {
  for (const std::string& glob : config.exclude) {
    if (config_glob_match(config, glob, path)) return true;
  }
  return false;
}

const Config* ConfigFinder::find_in(const std::string& dir) {
  const auto found = resolved_.find(dir);
  if (found != resolved_.end()) return found->second;
  const Config* config = nullptr;
  std::error_code ec;
  const fs::path file = fs::path(dir) / "pyproject.toml";
  if (fs::is_regular_file(file, ec)) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = parse_config(text.str(), dir);
    if (parsed) {
      config = parsed.get();
      by_dir_[dir] = std::move(parsed);
    }
  }
  if (config == nullptr) {
    const fs::path parent = fs::path(dir).parent_path();
    if (!parent.empty() && parent != fs::path(dir)) config = find_in(parent.string());
  }
  resolved_[dir] = config;
  return config;
}

const Config* ConfigFinder::find(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const std::lock_guard<std::mutex> lock(mutex_);
  return find_in(absolute.parent_path().string());
}

}  // namespace devcheck::lint::detail
