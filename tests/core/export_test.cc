// Each shared library exports its public API (DEVCHECK_API) and nothing
// else: read from the libraries' dynamic symbol tables with nm.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "support/support.h"

namespace {

struct Library {
  std::string name;
  std::string path;
};

std::vector<Library> libraries() {
  std::vector<Library> out;
  for (const auto& [name, path] : devcheck::testing::shared_libraries())
    out.push_back({name, path});
  return out;
}

// The demangled names of the symbols `path` defines and exports.
std::vector<std::string> exported(const std::string& path) {
  const std::string command = "nm -D --defined-only -C '" + path + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  EXPECT_NE(pipe, nullptr) << command;
  std::vector<std::string> symbols;
  char line[8192];
  while (pipe && fgets(line, sizeof line, pipe.get()) != nullptr) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    // "0000000000012340 T devcheck::check_on(...)": the name starts after the type letter.
    const auto first = s.find(' ');
    const auto second = first == std::string::npos ? first : s.find(' ', first + 1);
    if (second != std::string::npos) symbols.push_back(s.substr(second + 1));
  }
  return symbols;
}

bool has_symbol_starting(const std::vector<std::string>& symbols, const std::string& prefix) {
  for (const auto& s : symbols) {
    if (s.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(Export, EveryLibraryIsListedAndExportsSomething) {
  const auto libs = libraries();
  ASSERT_EQ(libs.size(), 8u);
  for (const auto& lib : libs) {
    EXPECT_FALSE(exported(lib.path).empty()) << lib.name << " (" << lib.path << ") exports nothing";
  }
}

// Internals: devcheck::detail (src/detail and each part's own), the sanitizer's
// engine (devcheck::sanitizer), the CLI's (devcheck::cli). No exported symbol
// names them, not even inside a signature or a template argument.
TEST(Export, NoInternalNamespaceIsExported) {
  for (const auto& lib : libraries()) {
    for (const auto& symbol : exported(lib.path)) {
      for (const char* internal :
           {"devcheck::detail::", "devcheck::sanitizer::", "devcheck::cli::"}) {
        EXPECT_EQ(symbol.find(internal), std::string::npos)
            << lib.name << " exports an internal symbol: " << symbol;
      }
    }
  }
}

TEST(Export, ThePublicApiIsExported) {
  for (const auto& lib : libraries()) {
    const auto symbols = exported(lib.path);
    std::vector<std::string> expected;
    if (lib.name == "format") {
      expected = {"devcheck::format::parse_device(", "devcheck::format::Checkpoint::open(",
                  "devcheck::format::remap(", "typeinfo for devcheck::format::Error"};
    } else if (lib.name == "core") {
      expected = {"devcheck::check_same_device(", "devcheck::DeviceSpec::parse(",
                  "devcheck::impl::map_ivalue_tensors(", "typeinfo for devcheck::Error",
                  "devcheck::DeviceScope::DeviceScope("};
    } else if (lib.name == "checkpoint") {
      expected = {"devcheck::load_state_dict(", "devcheck::save_tensors(",
                  "devcheck::MapLocation::to("};
    } else if (lib.name == "sanitizer") {
      expected = {"devcheck::Sanitizer::", "devcheck::run_sanitized(",
                  "devcheck_sanitizer_autostart"};
    } else if (lib.name == "train") {
      expected = {"devcheck::GradScaler::", "devcheck::impl::Stager::Stager("};
    } else if (lib.name == "distributed") {
      expected = {"devcheck::DistributedDataParallel::DistributedDataParallel(",
                  "devcheck::ProcessGroup::from_env(", "devcheck::DistributedSampler::"};
    } else if (lib.name == "fake_device") {
      expected = {"devcheck::fake_device(", "devcheck::testing::check_op("};
    } else if (lib.name == "launch") {
      expected = {"devcheck::launch("};
    }
    for (const auto& prefix : expected) {
      EXPECT_TRUE(has_symbol_starting(symbols, prefix))
          << lib.name << " does not export " << prefix;
    }
  }
}

// Hidden by default: what a library instantiates from its private
// dependencies (fmt, nlohmann::json) stays inside it, so a program that uses
// another version of them cannot pick up devcheck's.
TEST(Export, PrivateDependenciesAreNotExported) {
  for (const auto& lib : libraries()) {
    for (const auto& symbol : exported(lib.path)) {
      EXPECT_FALSE(symbol.rfind("fmt::", 0) == 0 || symbol.rfind("nlohmann::", 0) == 0)
          << lib.name << " exports " << symbol;
    }
  }
}

}  // namespace
