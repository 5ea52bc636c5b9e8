// Recall on real device bugs (docs/lint.md, "Recall on real bugs"): each
// tests/lint/bugs/<rule>_<name>.bug.py is a small program written after a
// public issue thread or fixing commit (cited in its header), with the bug's
// lines marked `# <- bug`; <name>.fixed.py is the same program fixed, the
// lines the fix changed marked `# <- fixed`. A bug is found when its rule
// reports on one of its marked lines; a fixed twin is flagged when the rule
// reports on one of its. The figures per rule may not get worse than the ones
// recorded here (and in docs/lint.md).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "devcheck/lint.h"

namespace devcheck::lint {
namespace {

struct Case {
  std::string name;  // the file name without .bug.py
  std::string rule;
  std::vector<std::string> sources;  // the threads' addresses
  std::string bug, fixed;            // the two programs
  std::set<int> bug_lines, fixed_lines;
};

struct Tally {
  int cases = 0;
  int found = 0;
  int flagged = 0;
};

// What the corpus gave when these figures were recorded: per rule, cases,
// bugs found at their lines, fixed twins flagged at theirs.
const std::map<std::string, Tally> kRecorded = {
    {"DC101", {11, 9, 0}}, {"DC102", {2, 2, 0}}, {"DC103", {1, 0, 0}}, {"DC104", {2, 1, 0}},
    {"DC105", {3, 3, 0}},  {"DC107", {4, 4, 0}}, {"DC108", {1, 1, 0}}, {"DC111", {9, 9, 0}},
    {"DC112", {2, 2, 0}},  {"DC113", {6, 6, 0}}, {"DC114", {3, 3, 0}}, {"DC117", {1, 1, 0}},
    {"DC120", {4, 4, 0}},
};

const std::string kFolder = std::string(DEVCHECK_SOURCE_DIR) + "/tests/lint/bugs/";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<int> marked(const std::string& code, const std::string& mark) {
  std::set<int> lines;
  std::istringstream in(code);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(mark) != std::string::npos) lines.insert(n);
  }
  return lines;
}

std::vector<Case> corpus() {
  std::vector<Case> out;
  DIR* dir = opendir(kFolder.c_str());
  if (dir == nullptr) return out;
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) {
    const std::string file = entry->d_name;
    const std::string suffix = ".bug.py";
    if (file.size() > suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      names.push_back(file.substr(0, file.size() - suffix.size()));
    }
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    Case c;
    c.name = name;
    c.bug = read(kFolder + name + ".bug.py");
    c.fixed = read(kFolder + name + ".fixed.py");
    std::istringstream header(c.bug);
    std::string line;
    while (std::getline(header, line) && line.rfind('#', 0) == 0) {
      if (line.rfind("# devcheck bug corpus: ", 0) == 0) c.rule = line.substr(23);
      if (line.rfind("# From: ", 0) == 0) c.sources.push_back(line.substr(8));
    }
    c.bug_lines = marked(c.bug, "# <- bug");
    c.fixed_lines = marked(c.fixed, "# <- fixed");
    out.push_back(std::move(c));
  }
  return out;
}

bool reported_at(const std::string& code, const std::string& rule, const std::set<int>& lines) {
  LintOptions options;
  options.select = {rule};
  for (const Finding& f : lint_source(code, "corpus.py", options)) {
    if (lines.count(f.line) != 0) return true;
  }
  return false;
}

TEST(LintBugCorpus, EachCaseCitesItsThreadAndMarksItsLines) {
  const std::vector<Case> all = corpus();
  ASSERT_GE(all.size(), 40U);
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.name.substr(0, 5), "dc" + c.rule.substr(2));
    ASSERT_FALSE(c.sources.empty());
    for (const std::string& url : c.sources) EXPECT_EQ(url.rfind("https://github.com/", 0), 0U);
    EXPECT_NE(c.bug.find("not the project's code"), std::string::npos);
    EXPECT_FALSE(c.bug_lines.empty());
    EXPECT_FALSE(c.fixed.empty()) << "no fixed twin";
    EXPECT_FALSE(c.fixed_lines.empty());
    EXPECT_NE(c.bug, c.fixed);
  }
}

TEST(LintBugCorpus, RecallAndFixedTwinsFlaggedAreNoWorseThanRecorded) {
  std::map<std::string, Tally> now;
  std::vector<std::string> missed;
  for (const Case& c : corpus()) {
    Tally& t = now[c.rule];
    ++t.cases;
    if (reported_at(c.bug, c.rule, c.bug_lines)) {
      ++t.found;
    } else {
      missed.push_back(c.name);
    }
    if (reported_at(c.fixed, c.rule, c.fixed_lines)) ++t.flagged;
  }
  Tally total, recorded_total;
  std::ostringstream table;
  table << "rule   cases found flagged\n";
  for (const auto& [rule, t] : now) {
    table << rule << "  " << t.cases << "  " << t.found << "  " << t.flagged << "\n";
    total.cases += t.cases;
    total.found += t.found;
    total.flagged += t.flagged;
    const auto recorded = kRecorded.find(rule);
    ASSERT_NE(recorded, kRecorded.end()) << rule << " has no recorded figures";
    EXPECT_EQ(t.cases, recorded->second.cases) << rule << ": record the new cases' figures";
    EXPECT_GE(t.found, recorded->second.found) << rule << " finds fewer bugs than recorded";
    EXPECT_LE(t.flagged, recorded->second.flagged) << rule << " flags more fixed twins";
  }
  for (const auto& [rule, t] : kRecorded) {
    recorded_total.cases += t.cases;
    recorded_total.found += t.found;
    EXPECT_EQ(now.count(rule), 1U) << rule << " has no case left";
  }
  table << "all    " << total.cases << "  " << total.found << "  " << total.flagged << "\n";
  for (const std::string& name : missed) table << "missed: " << name << "\n";
  std::cout << table.str();
  // The targets: recall at least 80%, at most 5% of fixed twins flagged.
  EXPECT_GE(total.found * 100, total.cases * 80) << table.str();
  EXPECT_LE(total.flagged * 100, total.cases * 5) << table.str();
  EXPECT_GE(total.found, recorded_total.found) << table.str();
}

}  // namespace
}  // namespace devcheck::lint
