// The environments children get (src/process/environment.cc).
#include "process/environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

namespace devcheck::detail {
namespace {

using ::testing::Contains;
using ::testing::Not;

// Sets variables for one test and removes them after.
class Variables {
 public:
  explicit Variables(std::vector<std::pair<std::string, std::string>> set) : set_(std::move(set)) {
    for (const auto& [name, value] : set_) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~Variables() {
    for (const auto& [name, value] : set_) ::unsetenv(name.c_str());
  }
  Variables(const Variables&) = delete;
  Variables& operator=(const Variables&) = delete;

 private:
  std::vector<std::pair<std::string, std::string>> set_;
};

long count_starting(const std::vector<std::string>& env, const std::string& prefix) {
  return std::count_if(env.begin(), env.end(),
                       [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
}

TEST(EnvironmentWith, ReplacesTheSameNamesAndAddsTheRestLastInTheirOrder) {
  const Variables v({{"DEVCHECK_ENV_TEST_A", "old"}, {"DEVCHECK_ENV_TEST_AB", "kept"}});
  const std::vector<std::string> env =
      environment_with({"DEVCHECK_ENV_TEST_A=new", "DEVCHECK_ENV_TEST_C=added"});
  EXPECT_THAT(env, Not(Contains("DEVCHECK_ENV_TEST_A=old")));
  EXPECT_THAT(env, Contains("DEVCHECK_ENV_TEST_AB=kept"));  // a longer name is another name
  EXPECT_EQ(count_starting(env, "DEVCHECK_ENV_TEST_A="), 1);
  ASSERT_GE(env.size(), 2U);
  EXPECT_EQ(env[env.size() - 2], "DEVCHECK_ENV_TEST_A=new");
  EXPECT_EQ(env.back(), "DEVCHECK_ENV_TEST_C=added");
  EXPECT_EQ(count_starting(env, "PATH="), 1);  // the rest of this process's environment
}

TEST(EnvironmentWithout, DropsAVariableByItsNameAndEqualsOrEveryNameWithAPrefix) {
  const Variables v({{"DEVCHECK_ENV_TEST_X", "1"},
                     {"DEVCHECK_ENV_TEST_X_MODE", "2"},
                     {"DEVCHECK_ENV_TEST_Y", "3"},
                     {"DEVCHECK_ENV_TEST_YZ", "4"}});
  const std::vector<std::string> env =
      environment_without({"DEVCHECK_ENV_TEST_X", "DEVCHECK_ENV_TEST_Y="});
  EXPECT_EQ(count_starting(env, "DEVCHECK_ENV_TEST_X"), 0);
  EXPECT_THAT(env, Not(Contains("DEVCHECK_ENV_TEST_Y=3")));
  EXPECT_THAT(env, Contains("DEVCHECK_ENV_TEST_YZ=4"));
  EXPECT_EQ(count_starting(env, "PATH="), 1);
  EXPECT_EQ(environment_without({}).size(), environment_with({}).size());
}

}  // namespace
}  // namespace devcheck::detail
