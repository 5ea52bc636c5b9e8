// The rules' registry (registry.cc): every rule once, in order of id, its
// unit complete; lint::rules() is the same list.
#include <gtest/gtest.h>

#include <dirent.h>

#include <set>

#include "devcheck/lint.h"
#include "lint/rule.h"

namespace devcheck::lint {
namespace {

TEST(LintRegistry, ListsEveryRuleOnceInOrderOfId) {
  const std::vector<const detail::Rule*>& all = detail::registry();
  ASSERT_EQ(all.size(), 23U);
  EXPECT_EQ(all.front()->info.id, "DC100");
  EXPECT_EQ(all.back()->info.id, "DC122");
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1]->info.id, all[i]->info.id);
  for (const detail::Rule* r : all) {
    EXPECT_FALSE(r->info.name.empty()) << r->info.id;
    EXPECT_FALSE(r->info.summary.empty()) << r->info.id;
    EXPECT_FALSE(r->bad.empty()) << r->info.id;
    EXPECT_FALSE(r->good.empty()) << r->info.id;
    EXPECT_NE(r->check, nullptr) << r->info.id;
    EXPECT_EQ(r->info.fixable, r->info.id == "DC102" || r->info.id == "DC109" ||
                                   r->info.id == "DC110" || r->info.id == "DC119")
        << r->info.id;
  }
  ASSERT_EQ(rules().size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(rules()[i].id, all[i]->info.id);
}

// The list is made from the files in src/lint/rules/: each file is one rule
// whose id its name starts with, and each has its test beside the others'.
TEST(LintRegistry, EachRuleIsOneFileWithATestFile) {
  std::set<std::string> sources, tests;
  for (const auto& [folder, names] :
       {std::pair{std::string(DEVCHECK_SOURCE_DIR) + "/src/lint/rules", &sources},
        std::pair{std::string(DEVCHECK_SOURCE_DIR) + "/tests/lint/rules", &tests}}) {
    DIR* dir = opendir(folder.c_str());
    ASSERT_NE(dir, nullptr) << folder;
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.rfind("dc", 0) == 0) names->insert(name);
    }
    closedir(dir);
  }
  ASSERT_EQ(sources.size(), detail::registry().size());
  for (const detail::Rule* r : detail::registry()) {
    std::string prefix = "dc" + std::string(r->info.id.substr(2)) + "_";
    const auto source = sources.lower_bound(prefix);
    ASSERT_NE(source, sources.end()) << r->info.id;
    EXPECT_EQ(source->rfind(prefix, 0), 0U) << r->info.id;
    const std::string test = source->substr(0, source->size() - 3) + "_test.cc";
    EXPECT_EQ(tests.count(test), 1U) << test;
  }
}

}  // namespace
}  // namespace devcheck::lint
