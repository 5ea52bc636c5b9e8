// Pickle edits: location rewrites that leave memo-shared user values alone,
// add no op torch.load(weights_only=True) refuses, and refuse what they
// cannot rewrite safely.
#include "format/pickle_edit.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>

#include "devcheck/format/error.h"
#include "format/allowlist.h"
#include "format/pickle_scan.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck::detail {
namespace {

using devcheck::testing::read_file;
using devcheck::testing::run_python;
using devcheck::testing::TempDir;

// A byte string literal with its embedded NULs.
template <std::size_t N>
std::string bin(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::string hex(std::string_view bytes) {
  std::string out;
  for (const unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// Every op of `bytes` is one that torch.load(weights_only=True) accepts.
void expect_weights_only_opcodes(const std::string& bytes) {
  const Pickle p = scan_pickle(bytes, "t");
  for (unsigned op = 0; op < 256; ++op) {
    if (p.opcodes.test(op)) {
      EXPECT_TRUE(weights_only_opcode(static_cast<unsigned char>(op)))
          << fmt::format("op 0x{:02x} ('{}')", op, static_cast<char>(op));
    }
  }
}

// Sets the location of every storage persistent id of `bytes` to `to`.
std::string change_locations(const std::string& bytes, const std::string& to) {
  const Pickle p = scan_pickle(bytes, "t");
  std::vector<StringChange> changes;
  for (const auto& pid : p.persistent_ids) changes.push_back({pid.location, to});
  return apply_edits(bytes, string_edits(p, changes, "t"));
}

// Python's pickle of `expr`, where a tuple ('S', ...) becomes the persistent
// id (...), as torch.save's storages do (strs memoized as torch.save's are).
std::string python_storage_pickle(const std::string& expr, int protocol) {
  TempDir dir;
  const std::string path = (dir / "p.pkl").string();
  const auto r = run_python(
      "import io, pickle, sys\n"
      "class P(pickle.Pickler):\n"
      "    def persistent_id(self, obj):\n"
      "        return obj[1:] if isinstance(obj, tuple) and obj[:1] == ('S',) else None\n"
      "f = io.BytesIO()\nP(f, protocol=" +
          std::to_string(protocol) + ").dump(" + expr +
          ")\n"
          "open(sys.argv[1], 'wb').write(f.getvalue())\n",
      {path});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return read_file(path);
}

// Loads a pickle made by python_storage_pickle, persistent ids as lists.
void expect_storage_pickle_value(const std::string& bytes, const std::string& expected) {
  const auto r = run_python(
      "import io, pickle, sys\n"
      "class U(pickle.Unpickler):\n"
      "    def persistent_load(self, pid): return list(pid)\n"
      "v = U(io.BytesIO(bytes.fromhex(sys.argv[1]))).load()\n"
      "assert v == eval(sys.argv[2]), v\nprint('OK')\n",
      {hex(bytes), expected});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

const char* const kShared =
    "(lambda loc: [('S', 'storage', 'F', 'k0', loc, 4), ('S', 'storage', 'F', 'k1', loc, 4), "
    "{'device': loc}])('cu' + 'da:1')";

TEST(PickleRewrite, LocationSharedThroughTheMemoKeepsTheUserValueWithoutPop) {
  const std::string bytes = python_storage_pickle(kShared, 2);
  const std::string out = change_locations(bytes, "cpu");
  expect_storage_pickle_value(
      out,
      "[['storage', 'F', 'k0', 'cpu', 4], ['storage', 'F', 'k1', 'cpu', 4], {'device': 'cuda:1'}]");
  // weights_only refuses POP ("Unsupported operand 48"): the rewrite adds none.
  const Pickle p = scan_pickle(out, "t");
  EXPECT_FALSE(p.opcodes.test('0'));
  std::bitset<256> added = p.opcodes & ~scan_pickle(bytes, "t").opcodes;
  added.reset('X');
  EXPECT_TRUE(added.none()) << added;
  expect_weights_only_opcodes(out);
}

TEST(PickleRewrite, LaterLocationsReuseTheMemoizedNewValue) {
  // The second storage's location is a BINGET of the first's: it stays one,
  // and only the user's value is pushed again, as the old string.
  const std::string bytes = python_storage_pickle(kShared, 2);
  const Pickle p = scan_pickle(bytes, "t");
  ASSERT_EQ(p.persistent_ids.size(), 2U);
  std::vector<MemoGet> shared;  // the second location and config['device']
  for (const auto& g : p.memo_gets) {
    if (p.at(g.node).text == "cuda:1") shared.push_back(g);
  }
  ASSERT_EQ(shared.size(), 2U);
  EXPECT_EQ(shared[0].begin, p.persistent_ids[1].location.begin);
  EXPECT_EQ(shared[0].source, p.persistent_ids[0].location.begin);
  auto edits = string_edits(
      p, {{p.persistent_ids[0].location, "cpu"}, {p.persistent_ids[1].location, "cpu"}}, "t");
  std::sort(edits.begin(), edits.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  ASSERT_EQ(edits.size(), 2U);
  EXPECT_EQ(edits[0].begin, p.persistent_ids[0].location.begin);
  EXPECT_EQ(edits[0].replacement, pickle_unicode("cpu"));
  EXPECT_EQ(edits[1].begin, shared[1].begin);
  EXPECT_EQ(edits[1].replacement, pickle_unicode("cuda:1"));
}

TEST(PickleRewrite, DifferentNewValuesForOneMemoizedStringEachGetTheirOwn) {
  const std::string bytes = python_storage_pickle(kShared, 2);
  const Pickle p = scan_pickle(bytes, "t");
  const std::string out = apply_edits(
      bytes,
      string_edits(
          p, {{p.persistent_ids[0].location, "cpu"}, {p.persistent_ids[1].location, "cuda:0"}},
          "t"));
  expect_storage_pickle_value(out,
                              "[['storage', 'F', 'k0', 'cpu', 4], ['storage', 'F', 'k1', 'cuda:0', "
                              "4], {'device': 'cuda:1'}]");
  expect_weights_only_opcodes(out);
}

TEST(PickleRewrite, Protocol4MemoNumberingSurvivesTheRewrite) {
  // MEMOIZE numbers slots by count: the rewrite keeps every MEMOIZE, so the
  // later slots ('after' and its reuse) still line up.
  const std::string bytes = python_storage_pickle(
      "(lambda loc, a: [('S', 'storage', 'F', 'k0', loc, 4), {'device': loc}, a, a])('cu' + "
      "'da:1', "
      "'aft' + 'er')",
      4);
  ASSERT_TRUE(scan_pickle(bytes, "t").opcodes.test(0x94));
  const std::string out = change_locations(bytes, "cpu");
  expect_storage_pickle_value(
      out, "[['storage', 'F', 'k0', 'cpu', 4], {'device': 'cuda:1'}, 'after', 'after']");
}

TEST(PickleRewrite, AStringCopiedByDupIsNotRewritten) {
  // ('storage', 'k', 'cpu', DUP of 'cpu', 4) as a persistent id: changing the
  // first 'cpu' would change its copy too.
  const std::string bytes =
      bin("\x80\x02(X\x07\x00\x00\x00storageX\x01\x00\x00\x00kX\x03\x00\x00\x00"
          "cpu"
          "2K\x04tQ.");
  const Pickle p = scan_pickle(bytes, "'d.pt' record 'd/data.pkl'");
  ASSERT_EQ(p.dup_sources.size(), 1U);
  const std::size_t location = bytes.find("X\x03");
  Site site;
  site.valid = true;
  site.begin = location;
  site.end = location + 8;
  try {
    string_edits(p, {{site, "cuda:0"}}, "'d.pt' record 'd/data.pkl'");
    FAIL() << "expected format::FormatError";
  } catch (const format::FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'d.pt' record 'd/data.pkl'"));
    EXPECT_THAT(e.message(), HasSubstr("DUP"));
  }
}

TEST(PickleRewrite, ApplyEditsReplacesRangesInAnyOrder) {
  EXPECT_EQ(apply_edits("abcdef", {{4, 5, "XY"}, {0, 1, ""}}), "bcdXYf");
  EXPECT_EQ(apply_edits("abc", {}), "abc");
}

}  // namespace
}  // namespace devcheck::detail
