// Each shared library exports its public API (DEVCHECK_API) and nothing
// else: read from the libraries' dynamic symbol tables with nm.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <memory>
#include <set>
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

// The internals the libraries share (devcheck::detail, marked DEVCHECK_API):
// the out-of-line halves of public templates and macros, which inline code in
// a user's program calls, and what one devcheck library takes from another.
// Exactly these may be exported of devcheck::detail; docs/architecture.md,
// "Symbols". A new one is added here on purpose, never by accident.
const std::set<std::string> kSharedInternals = {
    // format: the zip reader and writer, the pickle scanner and the parsed
    // checkpoint that `checkpoint` reads with, atomic output files, the CUDA probe.
    "AtomicOutput", "ParsedCheckpoint", "ZipReader", "ZipRecord", "ZipWriter", "parse_checkpoint",
    "pickle_unicode", "probe_cuda", "read_exact", "scan_pickle", "weights_only_opcode", "write_all",
    // core: the walk over c10::IValue, DEVCHECK_CHECK_INPUTS's checker, the
    // mismatch rule and its text, dtype and shape names, the staging label,
    // the fake device's hooks.
    "DeviceTally", "FakeDeviceHooks", "MismatchRow", "OpArg", "StagingScope", "check_inputs_impl",
    "describe_mismatch", "dtype_name", "fake_device_hooks", "is_stray", "map_ivalue_tensors",
    "scalar_type_of", "set_fake_device_hooks", "shape_str", "staging_label", "visit_ivalue_tensors",
    // train: the prefetcher's Stager and collate.
    "Stager", "collate"};

// Every devcheck::detail name an exported symbol mentions (in its own name,
// a signature or a template argument): "devcheck::detail::Stager::pin(...)" -> Stager.
std::vector<std::string> detail_names(const std::string& symbol) {
  static const std::string kDetail = "devcheck::detail::";
  std::vector<std::string> out;
  for (auto at = symbol.find(kDetail); at != std::string::npos; at = symbol.find(kDetail, at + 1)) {
    auto end = at + kDetail.size();
    while (end < symbol.size() &&
           (std::isalnum(static_cast<unsigned char>(symbol[end])) != 0 || symbol[end] == '_')) {
      ++end;
    }
    out.push_back(symbol.substr(at + kDetail.size(), end - at - kDetail.size()));
  }
  return out;
}

TEST(Export, DetailNamesInASymbolAreFound) {
  EXPECT_EQ(detail_names("devcheck::detail::Stager::pin(at::Tensor const&)"),
            std::vector<std::string>{"Stager"});
  EXPECT_EQ(detail_names("devcheck::f(devcheck::detail::OpArg, devcheck::detail::usable_cores)"),
            (std::vector<std::string>{"OpArg", "usable_cores"}));
  EXPECT_TRUE(detail_names("devcheck::check_on(at::Tensor const&)").empty());
}

// Nothing else of devcheck::detail is exported, nor anything of the
// sanitizer's engine (devcheck::sanitizer) or the CLI's (devcheck::cli), not
// even inside a signature or a template argument.
TEST(Export, OnlyTheSharedInternalsAreExported) {
  for (const auto& lib : libraries()) {
    for (const auto& symbol : exported(lib.path)) {
      for (const auto& name : detail_names(symbol)) {
        EXPECT_TRUE(kSharedInternals.count(name) == 1)
            << lib.name << " exports an internal symbol: " << symbol;
      }
      for (const char* internal : {"devcheck::sanitizer::", "devcheck::cli::"}) {
        EXPECT_EQ(symbol.find(internal), std::string::npos)
            << lib.name << " exports an internal symbol: " << symbol;
      }
    }
  }
}

// Each shared internal is exported by some library (the list is not stale).
TEST(Export, EverySharedInternalIsExported) {
  std::set<std::string> seen;
  for (const auto& lib : libraries()) {
    for (const auto& symbol : exported(lib.path)) {
      for (const auto& name : detail_names(symbol)) seen.insert(name);
    }
  }
  for (const auto& name : kSharedInternals) {
    EXPECT_EQ(seen.count(name), 1U) << "no library exports devcheck::detail::" << name;
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
                  "devcheck::detail::map_ivalue_tensors(", "typeinfo for devcheck::Error",
                  "devcheck::DeviceScope::DeviceScope("};
    } else if (lib.name == "checkpoint") {
      expected = {"devcheck::load_state_dict(", "devcheck::save_tensors(",
                  "devcheck::MapLocation::to("};
    } else if (lib.name == "sanitizer") {
      expected = {"devcheck::Sanitizer::", "devcheck::run_sanitized(",
                  "devcheck_sanitizer_autostart"};
    } else if (lib.name == "train") {
      expected = {"devcheck::GradScaler::", "devcheck::detail::Stager::Stager("};
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
