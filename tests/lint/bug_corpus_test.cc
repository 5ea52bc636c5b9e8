// Recall on real device bugs (docs/lint.md, "Recall on real bugs"). Each
// case is a small program written for these tests after a public issue
// thread or fixing commit (cited in its header), with the bug's lines marked
// `# <- bug`, and its fixed twin (`.fixed.py`, marked `# <- fixed`). A bug is
// found when its rule reports on one of its marked lines; a fixed twin is
// flagged when the rule reports on one of its.
//
// Five corpora: tests/lint/bugs/ (the first one, written beside the rules),
// the blind corpus of tests/lint/blind/, split by a hash of each case's
// source address into tuning/ (the rules may be changed for it) and test/
// (never: its figure is the blind one), blind/extra/, tuning material
// written after the split (either hash; no source in common with the rest),
// blind/draw2/ to blind/draw6/, a second to a sixth blind draw split the
// same way. The figures per
// corpus and rule may not get worse than the ones recorded here (and in
// docs/lint.md).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

using Figures = std::map<std::string, Tally>;

// What each corpus gave when these figures were recorded: per rule, cases,
// bugs found at their lines, fixed twins flagged at theirs.
const Figures kOldCorpus = {
    {"DC101", {11, 10, 0}}, {"DC102", {2, 2, 0}}, {"DC103", {1, 0, 0}}, {"DC104", {2, 2, 0}},
    {"DC105", {3, 3, 0}},   {"DC107", {4, 4, 0}}, {"DC108", {1, 1, 0}}, {"DC111", {9, 9, 0}},
    {"DC112", {2, 2, 0}},   {"DC113", {6, 6, 0}}, {"DC114", {3, 3, 0}}, {"DC117", {1, 1, 0}},
    {"DC120", {4, 4, 0}},
};
const Figures kTuningHalf = {
    {"DC101", {4, 3, 0}}, {"DC102", {1, 1, 0}}, {"DC103", {3, 3, 0}}, {"DC104", {1, 1, 0}},
    {"DC105", {1, 1, 0}}, {"DC111", {3, 3, 0}}, {"DC112", {2, 2, 0}}, {"DC113", {5, 5, 0}},
    {"DC117", {2, 2, 0}}, {"DC120", {5, 2, 0}}, {"DC121", {2, 1, 0}}, {"DC122", {2, 2, 0}},
};
// The second round's tuning material (tests/lint/blind/extra/, README.md):
// real bugs of the kinds the test half's misses were reported as, written
// after the split and never a case of test/; either hash. The third round's
// 16 cases (README.md) are in them: 4 found before that round's changes, 12 after;
// the fourth round's 19: 10 found before its changes, 17 after; and the fifth
// round's 15: 7 found before its changes, 12 after. The ninth round's flow
// changes found two more: 60 of 66.
const Figures kExtra = {
    {"DC101", {19, 16, 0}}, {"DC102", {2, 2, 0}}, {"DC103", {3, 2, 0}},   {"DC104", {2, 1, 0}},
    {"DC105", {3, 3, 0}},   {"DC111", {4, 4, 0}}, {"DC112", {1, 0, 0}},   {"DC113", {5, 5, 0}},
    {"DC120", {15, 15, 0}}, {"DC121", {1, 1, 0}}, {"DC122", {11, 11, 0}},
};
// The first draw's test half: 23 of 35 from the second round to the seventh;
// 22 after the eighth (tuned on the third draw's tuning half), which lost a
// DC101 case here. Recorded as measured: no rule is changed for a case of
// test/, and the round was not undone for it (that would choose rules by
// the blind half).
const Figures kTestHalf = {
    {"DC101", {7, 3, 0}}, {"DC104", {1, 0, 0}}, {"DC105", {4, 3, 0}}, {"DC107", {2, 2, 0}},
    {"DC111", {4, 2, 0}}, {"DC113", {4, 4, 0}}, {"DC116", {1, 1, 0}}, {"DC117", {3, 3, 0}},
    {"DC120", {6, 1, 0}}, {"DC121", {2, 2, 0}}, {"DC122", {1, 1, 0}},
};

// The second blind draw's halves, measured first with the rules as they
// were when it was written (main at b842e15: test 14 of 29, 2 twins flagged;
// tuning 13 of 28, 3 flagged). No rule was ever changed for a case of test/;
// the sixth round (issue 38) tuned on tuning/: 25 of 28 found, no twin
// flagged (13 and 3 before it); test/ after it: 15 of 29, 1 flagged; after
// the seventh round (variants of found cases): 16 of 29, 1 flagged.
const Figures kDraw2Tuning = {
    {"DC101", {4, 3, 0}}, {"DC104", {1, 1, 0}}, {"DC105", {6, 6, 0}},
    {"DC107", {1, 1, 0}}, {"DC111", {3, 3, 0}}, {"DC112", {4, 4, 0}},
    {"DC113", {6, 5, 0}}, {"DC115", {1, 1, 0}}, {"DC120", {2, 1, 0}},
};
const Figures kDraw2Test = {
    {"DC101", {3, 2, 0}}, {"DC102", {2, 2, 0}}, {"DC103", {1, 0, 0}}, {"DC104", {1, 1, 0}},
    {"DC105", {5, 5, 1}}, {"DC111", {2, 1, 0}}, {"DC112", {4, 2, 0}}, {"DC113", {4, 2, 0}},
    {"DC116", {1, 1, 0}}, {"DC120", {6, 1, 0}},
};

// The third blind draw's halves (tests/lint/blind/draw3/README.md), measured
// first with the rules as they were when it was written (main at a80f012,
// before the seventh round): test 10 of 32, 1 twin flagged; tuning 12 of 29,
// 1 flagged. After the seventh round (variants of found cases, never this
// draw): test 10 of 32, 1 flagged; tuning 13 of 29, 2 flagged (a DC101 twin).
// The eighth round tuned on the tuning half (docs/lint.md): 18 of 29, 0
// flagged; the ninth (structural changes to the flow): 20 of 29. The test
// half after the ninth round: 10 of 32; after the precision fixes of the
// seed-42 sample (docs/lint.md): 9 of 32, a DC111 case lost, recorded as
// measured (choosing rules by what the test half says would make it a
// tuning half).
const Figures kDraw3Tuning = {
    {"DC101", {4, 4, 0}}, {"DC102", {1, 1, 0}}, {"DC103", {2, 1, 0}}, {"DC105", {3, 3, 0}},
    {"DC111", {5, 5, 0}}, {"DC112", {1, 1, 0}}, {"DC113", {4, 2, 0}}, {"DC116", {1, 1, 0}},
    {"DC120", {7, 2, 0}}, {"DC122", {1, 0, 0}},
};
const Figures kDraw3Test = {
    {"DC101", {6, 3, 0}}, {"DC103", {2, 0, 0}}, {"DC105", {5, 3, 0}},
    {"DC107", {2, 0, 0}}, {"DC111", {2, 0, 0}}, {"DC112", {1, 0, 0}},
    {"DC113", {8, 3, 1}}, {"DC120", {5, 0, 0}}, {"DC122", {1, 1, 0}},
};

// The fourth blind draw's halves (tests/lint/blind/draw4/README.md), measured
// with the rules as they were when it was written (main at 7627fb5, after
// the eighth round; no round has used it).
// Test 21 of 35 (60%), 1 twin flagged (a DC111); tuning 11 of 27 (41%), none.
// The tenth round (docs/lint.md) tuned on the tuning half: 16 of 27, none;
// the test half after it: 21 of 35, unchanged. tune7 (a method of a plain
// instance's own class): tuning 17 of 27.
const Figures kDraw4Tuning = {
    {"DC101", {7, 2, 0}}, {"DC102", {2, 2, 0}}, {"DC104", {1, 1, 0}}, {"DC105", {6, 6, 0}},
    {"DC111", {2, 1, 0}}, {"DC112", {1, 1, 0}}, {"DC113", {2, 1, 0}}, {"DC115", {1, 1, 0}},
    {"DC118", {1, 0, 0}}, {"DC120", {3, 2, 0}}, {"DC121", {1, 0, 0}},
};
const Figures kDraw4Test = {
    {"DC101", {7, 4, 0}}, {"DC102", {1, 1, 0}}, {"DC104", {1, 1, 0}},
    {"DC105", {4, 3, 0}}, {"DC111", {4, 4, 1}}, {"DC112", {7, 6, 0}},
    {"DC113", {3, 1, 0}}, {"DC118", {1, 0, 0}}, {"DC120", {7, 2, 0}},
};

// The fifth blind draw's halves (tests/lint/blind/draw5/README.md), measured
// with the rules as they were when it was merged (after the ninth round and
// the seed-42 precision fixes, neither of which saw it): test 14 of 32
// (44%), 1 twin flagged; tuning 16 of 29 (55%), 3 flagged (all DC111). The
// tenth round (docs/lint.md) tuned on the tuning half: 22 of 29, no twin
// flagged; the test half after it: 14 of 32, unchanged. tune7 (a function
// a method returns, called): tuning 23 of 29.
const Figures kDraw5Tuning = {
    {"DC101", {9, 8, 0}}, {"DC102", {1, 1, 0}}, {"DC105", {3, 3, 0}}, {"DC110", {1, 1, 0}},
    {"DC111", {4, 4, 0}}, {"DC112", {2, 1, 0}}, {"DC119", {1, 1, 0}}, {"DC120", {8, 4, 0}},
};
const Figures kDraw5Test = {
    {"DC101", {10, 7, 0}}, {"DC103", {4, 1, 0}}, {"DC105", {3, 3, 0}},
    {"DC111", {7, 2, 1}},  {"DC112", {3, 0, 0}}, {"DC120", {5, 1, 0}},
};

// The sixth blind draw's halves (tests/lint/blind/draw6/README.md),
// measured when it was merged, with the rules after the seed-44 precision
// fixes (prec45) and before the eleventh round (neither saw it): test 12 of 39
// (31%), 2 twins flagged; tuning 21 of 48 (44%), 3 flagged. The tuning
// half's figures since tuned on it (DC110, DC111; helper tune6): 22 of 48, 1
// flagged (its DC105 change for URL loaders was taken back, docs/lint.md);
// then (flow6: conditional expressions, parameter loops, index_put_,
// sparse tensors) 26 of 48, DC101 9 of 15; then (tune7: host tensors into a
// moved module's methods, factories kept in attributes, plain classes a
// module keeps, casts to legacy CPU types, tokenizer outputs never moved)
// 31 of 48, DC101 12 of 15, DC120 2 of 9.
// The test half after the eleventh round (frameworks, inputs beside a moved
// one) and tune6: 14 of 39 (36%), 3 twins flagged (one more DC101), as
// measured, not examined (that would make it tuning material). The older
// test halves then: first 22 of 35, second 17 of 29 (DC120 +1), third 10
// of 32 (DC113 +1), fourth 22 of 35 (DC120 +1), fifth 14 of 32.
const Figures kDraw6Tuning = {
    {"DC101", {15, 12, 1}}, {"DC102", {1, 1, 0}}, {"DC103", {1, 1, 0}}, {"DC105", {6, 5, 0}},
    {"DC109", {3, 3, 0}},   {"DC110", {3, 3, 0}}, {"DC111", {4, 3, 0}}, {"DC112", {4, 0, 0}},
    {"DC113", {1, 1, 0}},   {"DC117", {1, 0, 0}}, {"DC120", {9, 2, 0}},
};
const Figures kDraw6Test = {
    {"DC101", {15, 7, 1}}, {"DC102", {1, 1, 0}}, {"DC103", {1, 0, 0}}, {"DC105", {2, 1, 0}},
    {"DC111", {4, 2, 2}},  {"DC112", {2, 0, 0}}, {"DC113", {1, 0, 0}}, {"DC120", {10, 2, 0}},
    {"DC121", {1, 0, 0}},  {"DC122", {2, 1, 0}},
};

// The seventh blind draw's halves (tests/lint/blind/draw7/README.md), written
// while prec48 (DC105, DC114, DC117) and tune7 (the flow, DC101, DC120) were
// made, neither of which saw it; measured when it was merged: test 16 of 45
// (36%), 1 twin flagged; tuning 11 of 39 (28%), 2 flagged. main before both
// (2d3736c) measured the same on both halves.
const Figures kDraw7Tuning = {
    {"DC101", {15, 5, 1}}, {"DC103", {2, 1, 1}}, {"DC111", {2, 0, 0}},  {"DC112", {3, 2, 0}},
    {"DC113", {3, 1, 0}},  {"DC119", {1, 0, 0}}, {"DC120", {13, 2, 0}},
};
const Figures kDraw7Test = {
    {"DC101", {18, 10, 1}}, {"DC102", {3, 2, 0}}, {"DC103", {3, 0, 0}}, {"DC105", {1, 1, 0}},
    {"DC111", {2, 1, 0}},   {"DC112", {4, 0, 0}}, {"DC113", {1, 1, 0}}, {"DC120", {13, 1, 0}},
};

const std::string kTests = std::string(DEVCHECK_SOURCE_DIR) + "/tests/lint/";

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

std::vector<Case> corpus(const std::string& folder) {
  std::vector<Case> out;
  DIR* dir = opendir(folder.c_str());
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
    c.bug = read(folder + name + ".bug.py");
    c.fixed = read(folder + name + ".fixed.py");
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

std::vector<Case> old_corpus() { return corpus(kTests + "bugs/"); }
std::vector<Case> tuning_half() { return corpus(kTests + "blind/tuning/"); }
std::vector<Case> test_half() { return corpus(kTests + "blind/test/"); }
std::vector<Case> extra() { return corpus(kTests + "blind/extra/"); }
// The second blind draw (tests/lint/blind/draw2/README.md): written after
// the first draw's rounds by writers who never ran the lint, split by the same
// hash.
std::vector<Case> draw2_tuning() { return corpus(kTests + "blind/draw2/tuning/"); }
std::vector<Case> draw2_test() { return corpus(kTests + "blind/draw2/test/"); }
// The third (tests/lint/blind/draw3/README.md): written after the second
// draw's sixth round, the same way, from other queries.
std::vector<Case> draw3_tuning() { return corpus(kTests + "blind/draw3/tuning/"); }
std::vector<Case> draw3_test() { return corpus(kTests + "blind/draw3/test/"); }
// The fourth (tests/lint/blind/draw4/README.md): written after the eighth
// round, the same way, from other queries.
std::vector<Case> draw4_tuning() { return corpus(kTests + "blind/draw4/tuning/"); }
std::vector<Case> draw4_test() { return corpus(kTests + "blind/draw4/test/"); }
// The fifth (tests/lint/blind/draw5/README.md): written beside the ninth
// round, the same way, from other queries.
std::vector<Case> draw5_tuning() { return corpus(kTests + "blind/draw5/tuning/"); }
std::vector<Case> draw5_test() { return corpus(kTests + "blind/draw5/test/"); }
// The sixth (tests/lint/blind/draw6/README.md): written beside the eleventh
// round and the seed-44 precision fixes, by three writers, from other
// queries.
std::vector<Case> draw6_tuning() { return corpus(kTests + "blind/draw6/tuning/"); }
std::vector<Case> draw6_test() { return corpus(kTests + "blind/draw6/test/"); }
std::vector<Case> draw7_tuning() { return corpus(kTests + "blind/draw7/tuning/"); }
std::vector<Case> draw7_test() { return corpus(kTests + "blind/draw7/test/"); }

// The blind corpus's split (tests/lint/blind/README.md): FNV-1a, 64 bits.
uint64_t fnv1a64(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char byte : text) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

bool reported_at(const std::string& code, const std::string& rule, const std::set<int>& lines) {
  LintOptions options;
  options.select = {rule};
  for (const Finding& f : lint_source(code, "corpus.py", options)) {
    if (lines.count(f.line) != 0) return true;
  }
  return false;
}

void check_cases(const std::vector<Case>& all) {
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

// Lints every case of a corpus, prints its table, and holds its figures to
// the recorded ones; returns the totals.
Tally measure(const std::string& title, const std::vector<Case>& all, const Figures& recorded) {
  Figures now;
  std::vector<std::string> missed, flagged;
  for (const Case& c : all) {
    Tally& t = now[c.rule];
    ++t.cases;
    if (reported_at(c.bug, c.rule, c.bug_lines)) {
      ++t.found;
    } else {
      missed.push_back(c.name);
    }
    if (reported_at(c.fixed, c.rule, c.fixed_lines)) {
      ++t.flagged;
      flagged.push_back(c.name);
    }
  }
  Tally total;
  std::ostringstream table;
  table << title << "\nrule   cases found flagged\n";
  for (const auto& [rule, t] : now) {
    table << rule << "  " << t.cases << "  " << t.found << "  " << t.flagged << "\n";
    total.cases += t.cases;
    total.found += t.found;
    total.flagged += t.flagged;
    const auto figures = recorded.find(rule);
    EXPECT_NE(figures, recorded.end()) << title << ": " << rule << " has no recorded figures";
    if (figures == recorded.end()) continue;
    EXPECT_EQ(t.cases, figures->second.cases) << title << ", " << rule << ": record the new cases";
    EXPECT_GE(t.found, figures->second.found) << title << ", " << rule << " finds fewer bugs";
    EXPECT_LE(t.flagged, figures->second.flagged) << title << ", " << rule << " flags more twins";
  }
  for (const auto& [rule, t] : recorded) {
    EXPECT_EQ(now.count(rule), 1U) << title << ": " << rule << " has no case left";
  }
  table << "all    " << total.cases << "  " << total.found << "  " << total.flagged << "\n";
  for (const std::string& name : missed) table << "missed: " << name << "\n";
  for (const std::string& name : flagged) table << "twin flagged: " << name << "\n";
  std::cout << table.str();
  return total;
}

TEST(LintBugCorpus, EachCaseCitesItsThreadAndMarksItsLines) {
  const std::vector<Case> old = old_corpus();
  ASSERT_GE(old.size(), 40U);
  check_cases(old);
  const std::vector<Case> tuning = tuning_half();
  const std::vector<Case> test = test_half();
  ASSERT_GE(tuning.size() + test.size(), 60U);
  check_cases(tuning);
  check_cases(test);
  const std::vector<Case> more = extra();
  ASSERT_GE(more.size(), 16U);
  check_cases(more);
}

TEST(LintBugCorpus, ExtraCasesShareNoSourceWithTheOtherCorpora) {
  std::set<std::string> others;
  for (const auto& cases :
       {old_corpus(), tuning_half(), test_half(), draw2_tuning(), draw2_test(), draw3_tuning(),
        draw3_test(), draw4_tuning(), draw4_test(), draw5_tuning(), draw5_test(), draw6_tuning(),
        draw6_test(), draw7_tuning(), draw7_test()}) {
    for (const Case& c : cases) others.insert(c.sources.begin(), c.sources.end());
  }
  for (const Case& c : extra()) {
    SCOPED_TRACE(c.name);
    for (const std::string& url : c.sources) EXPECT_EQ(others.count(url), 0U) << url;
  }
}

TEST(LintBugCorpus, BlindCasesSitInTheHalfTheirSourceHashNames) {
  std::set<std::string> old_sources;
  for (const Case& c : old_corpus()) old_sources.insert(c.sources.begin(), c.sources.end());
  for (const auto& [cases, odd] : {std::pair{tuning_half(), false}, std::pair{test_half(), true}}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      ASSERT_FALSE(c.sources.empty());
      EXPECT_EQ(fnv1a64(c.sources.front()) % 2 == 1, odd) << c.sources.front();
      for (const std::string& url : c.sources) {
        EXPECT_EQ(old_sources.count(url), 0U) << url << " is in tests/lint/bugs";
      }
    }
  }
}

// A later blind draw: at least `at_least` cases, each well formed, none
// citing a source of the earlier corpora or of another case, each in the
// half its first source's hash names.
void check_draw(const std::vector<Case>& tuning, const std::vector<Case>& test,
                const std::vector<std::vector<Case>>& earlier_corpora, std::size_t at_least) {
  ASSERT_GE(tuning.size() + test.size(), at_least);
  check_cases(tuning);
  check_cases(test);
  std::set<std::string> earlier;
  for (const auto& cases : earlier_corpora) {
    for (const Case& c : cases) earlier.insert(c.sources.begin(), c.sources.end());
  }
  std::set<std::string> seen;
  for (const auto& [cases, odd] : {std::pair{tuning, false}, std::pair{test, true}}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      ASSERT_FALSE(c.sources.empty());
      EXPECT_EQ(fnv1a64(c.sources.front()) % 2 == 1, odd) << c.sources.front();
      for (const std::string& url : c.sources) {
        EXPECT_EQ(earlier.count(url), 0U) << url << " is a source of an earlier corpus";
        EXPECT_TRUE(seen.insert(url).second) << url << " is the source of two cases";
      }
    }
  }
}

TEST(LintBugCorpus, SecondDrawCasesCiteNewThreadsAndSitInTheHalfTheirHashNames) {
  check_draw(draw2_tuning(), draw2_test(), {old_corpus(), tuning_half(), test_half(), extra()}, 50);
}

TEST(LintBugCorpus, ThirdDrawCasesCiteNewThreadsAndSitInTheHalfTheirHashNames) {
  check_draw(draw3_tuning(), draw3_test(),
             {old_corpus(), tuning_half(), test_half(), extra(), draw2_tuning(), draw2_test()}, 60);
}

TEST(LintBugCorpus, FourthDrawCasesCiteNewThreadsAndSitInTheHalfTheirHashNames) {
  check_draw(draw4_tuning(), draw4_test(),
             {old_corpus(), tuning_half(), test_half(), extra(), draw2_tuning(), draw2_test(),
              draw3_tuning(), draw3_test()},
             60);
}

TEST(LintBugCorpus, FifthDrawCasesCiteNewThreadsAndSitInTheHalfTheirHashNames) {
  check_draw(draw5_tuning(), draw5_test(),
             {old_corpus(), tuning_half(), test_half(), extra(), draw2_tuning(), draw2_test(),
              draw3_tuning(), draw3_test(), draw4_tuning(), draw4_test()},
             60);
}

TEST(LintBugCorpus, SixthDrawCasesCiteNewThreadsAndSitInTheHalfTheirHashNames) {
  check_draw(
      draw6_tuning(), draw6_test(),
      {old_corpus(), tuning_half(), test_half(), extra(), draw2_tuning(), draw2_test(),
       draw3_tuning(), draw3_test(), draw4_tuning(), draw4_test(), draw5_tuning(), draw5_test()},
      80);
}

TEST(LintBugCorpus, SeventhDrawCasesCiteNewThreadsAndSitInTheHalfTheirHashNames) {
  check_draw(draw7_tuning(), draw7_test(),
             {old_corpus(), tuning_half(), test_half(), extra(), draw2_tuning(), draw2_test(),
              draw3_tuning(), draw3_test(), draw4_tuning(), draw4_test(), draw5_tuning(),
              draw5_test(), draw6_tuning(), draw6_test()},
             80);
}

TEST(LintBugCorpus, SplitHashIsFnv1aOfTheAddress) {
  // The published FNV-1a 64 test vectors.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(LintBugCorpus, OldCorpusRecallAndTwinsAreNoWorseThanRecorded) {
  const Tally total = measure("tests/lint/bugs", old_corpus(), kOldCorpus);
  // The targets: recall at least 90%, at most 5% of fixed twins flagged.
  EXPECT_GE(total.found * 100, total.cases * 90);
  EXPECT_LE(total.flagged * 100, total.cases * 5);
}

TEST(LintBugCorpus, TuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/tuning", tuning_half(), kTuningHalf);
}

TEST(LintBugCorpus, ExtraTuningRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/extra", extra(), kExtra);
}

TEST(LintBugCorpus, BlindTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/test", test_half(), kTestHalf);
}

TEST(LintBugCorpus, SecondDrawTuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw2/tuning", draw2_tuning(), kDraw2Tuning);
}

TEST(LintBugCorpus, SecondDrawTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw2/test", draw2_test(), kDraw2Test);
}

TEST(LintBugCorpus, ThirdDrawTuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw3/tuning", draw3_tuning(), kDraw3Tuning);
}

TEST(LintBugCorpus, ThirdDrawTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw3/test", draw3_test(), kDraw3Test);
}

TEST(LintBugCorpus, FourthDrawTuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw4/tuning", draw4_tuning(), kDraw4Tuning);
}

TEST(LintBugCorpus, FourthDrawTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw4/test", draw4_test(), kDraw4Test);
}

TEST(LintBugCorpus, FifthDrawTuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw5/tuning", draw5_tuning(), kDraw5Tuning);
}

TEST(LintBugCorpus, FifthDrawTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw5/test", draw5_test(), kDraw5Test);
}

TEST(LintBugCorpus, SixthDrawTuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw6/tuning", draw6_tuning(), kDraw6Tuning);
}

TEST(LintBugCorpus, SixthDrawTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw6/test", draw6_test(), kDraw6Test);
}

TEST(LintBugCorpus, SeventhDrawTuningHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw7/tuning", draw7_tuning(), kDraw7Tuning);
}

TEST(LintBugCorpus, SeventhDrawTestHalfRecallAndTwinsAreNoWorseThanRecorded) {
  measure("tests/lint/blind/draw7/test", draw7_test(), kDraw7Test);
}

}  // namespace
}  // namespace devcheck::lint
