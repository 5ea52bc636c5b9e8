// LintReport's text, JSON, SARIF and statistics.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "devcheck/lint.h"

namespace devcheck::lint {
namespace {

constexpr const char* kHome = "https://github.com/devcheck/devcheck";

std::string_view rule_name(const std::string& id) {
  for (const RuleInfo& r : rules()) {
    if (r.id == id) return r.name;
  }
  return {};
}

std::string lower(std::string_view id) {
  std::string out(id);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string plural(std::size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace

std::string rule_url(std::string_view id) {
  return fmt::format("{}/blob/main/docs/lint.md#{}", kHome, lower(id));
}

void LintReport::finish() {
  std::sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.path, a.cell, a.line, a.column, a.rule) <
           std::tie(b.path, b.cell, b.line, b.column, b.rule);
  });
  std::sort(errors_.begin(), errors_.end());
}

std::string LintReport::to_text() const {
  std::string out;
  std::set<std::string> files;
  std::size_t fixable = 0;
  for (const Finding& f : findings_) {
    const std::string cell = f.cell == 0 ? "" : fmt::format("cell {}:", f.cell);
    out += fmt::format("{}:{}{}:{}: {} {}\n", f.path, cell, f.line, f.column, f.rule, f.message);
    files.insert(f.path);
    if (f.fix) ++fixable;
  }
  if (findings_.empty()) {
    out += fmt::format("No findings in {} checked.\n", plural(files_checked_, "file"));
  } else {
    out += fmt::format("Found {} in {} ({} checked){}.\n", plural(findings_.size(), "finding"),
                       plural(files.size(), "file"), files_checked_,
                       fixable == 0 ? "" : fmt::format("; {} fixable", fixable));
  }
  return out;
}

std::string LintReport::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const Finding& f : findings_) {
    nlohmann::json j = {{"path", f.path},
                        {"line", f.line},
                        {"column", f.column},
                        {"end_line", f.end_line},
                        {"end_column", f.end_column},
                        {"rule", f.rule},
                        {"message", f.message}};
    if (f.cell != 0) j["cell"] = f.cell;
    if (f.fix) {
      nlohmann::json edits = nlohmann::json::array();
      for (const Edit& e : f.fix->edits) {
        edits.push_back(
            {{"start_byte", e.start_byte}, {"end_byte", e.end_byte}, {"content", e.content}});
      }
      j["fix"] = {{"message", f.fix->message}, {"edits", edits}};
    }
    out.push_back(std::move(j));
  }
  return out.dump(2);
}

std::string LintReport::to_sarif() const {
  nlohmann::json descriptors = nlohmann::json::array();
  std::map<std::string, int> index;
  for (const RuleInfo& r : rules()) {
    index[std::string(r.id)] = static_cast<int>(descriptors.size());
    descriptors.push_back(
        {{"id", r.id},
         {"name", r.name},
         {"shortDescription", {{"text", r.summary}}},
         {"helpUri", rule_url(r.id)},
         {"defaultConfiguration", {{"level", r.id == "DC100" ? "error" : "warning"}}}});
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Finding& f : findings_) {
    nlohmann::json result = {{"ruleId", f.rule},
                             {"level", f.rule == "DC100" ? "error" : "warning"},
                             {"message", {{"text", f.message}}},
                             {"locations",
                              {{{"physicalLocation",
                                 {{"artifactLocation", {{"uri", f.path}}},
                                  {"region",
                                   {{"startLine", f.line},
                                    {"startColumn", f.column},
                                    {"endLine", f.end_line},
                                    {"endColumn", f.end_column}}}}}}}}};
    if (f.cell != 0) {
      // A notebook: the region is where the finding sits in the .ipynb file
      // as text (what a SARIF viewer shows); the cell and the place in it
      // are properties.
      nlohmann::json& region = result["locations"][0]["physicalLocation"]["region"];
      region = {{"startLine", f.file_line}, {"startColumn", f.file_column}};
      result["properties"] = {{"cell", f.cell}, {"cellLine", f.line}, {"cellColumn", f.column}};
    }
    const auto found = index.find(f.rule);
    if (found != index.end()) result["ruleIndex"] = found->second;
    results.push_back(std::move(result));
  }
  nlohmann::json sarif = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool",
          {{"driver", {{"name", "devcheck"}, {"informationUri", kHome}, {"rules", descriptors}}}}},
         {"results", results}}}}};
  return sarif.dump(2);
}

std::string LintReport::statistics() const {
  std::map<std::string, std::size_t> counts;
  for (const Finding& f : findings_) ++counts[f.rule];
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [rule, count] : sorted) {
    out += fmt::format("{:>6}  {}  {}\n", count, rule, rule_name(rule));
  }
  return out;
}

}  // namespace devcheck::lint
