// The pickle scanner: values from real Python pickles, nothing executed,
// malformed input rejected with a clear message.
#include "format/pickle_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devcheck/format/error.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck::detail {
namespace {

using devcheck::testing::read_file;
using devcheck::testing::run_python;
using devcheck::testing::TempDir;

std::string python_pickle(const std::string& expr, int protocol) {
  TempDir dir;
  const std::string path = (dir / "p.pkl").string();
  const auto r = run_python(
      "import pickle, sys, collections\nopen(sys.argv[1], 'wb').write("
      "pickle.dumps(" +
          expr + ", protocol=" + std::to_string(protocol) + "))",
      {path});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return read_file(path);
}

// A byte string literal with its embedded NULs.
template <std::size_t N>
std::string bin(const char (&s)[N]) {
  return std::string(s, N - 1);
}

const Node& item(const Pickle& p, const Node& dict, const std::string& key) {
  for (const auto& [k, v] : dict.pairs) {
    if (p.at(k).text == key) return p.at(v);
  }
  throw std::runtime_error("no key " + key);
}

TEST(PickleScanner, ReadsPlainValuesOfEveryProtocol) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    const std::string bytes = python_pickle(
        "{'i': -7, 'big': 2**70, 'f': 0.25, 's': 'héllo', 'b': b'\\x00\\x01', 't': (1, 2, 3), "
        "'l': [True, False, None], 'n': 123456789012}",
        protocol);
    const Pickle p = scan_pickle(bytes, "test");
    const Node& root = p.at(p.root);
    ASSERT_EQ(root.kind, NodeKind::kDict) << "protocol " << protocol;
    EXPECT_EQ(item(p, root, "i").integer, -7);
    EXPECT_EQ(item(p, root, "big").kind, NodeKind::kBigInt);
    EXPECT_DOUBLE_EQ(item(p, root, "f").real, 0.25);
    if (protocol > 0) {
      EXPECT_EQ(item(p, root, "s").text, "héllo");
    }
    EXPECT_EQ(item(p, root, "t").items.size(), 3u);
    EXPECT_EQ(item(p, root, "l").items.size(), 3u);
    EXPECT_EQ(item(p, root, "n").integer, 123456789012);
    EXPECT_EQ(p.end, bytes.size());
  }
}

TEST(PickleScanner, RecordsGlobalsAndNeverCallsThem) {
  // os.system would run here if anything executed the REDUCE.
  const std::string bytes =
      bin("\x80\x02"
          "cposix\nsystem\nX\x05\x00\x00\x00"
          "touch\x85R.");
  const Pickle p = scan_pickle(bytes, "test");
  ASSERT_EQ(p.globals.size(), 1u);
  EXPECT_EQ(p.globals[0].module, "posix");
  EXPECT_EQ(p.globals[0].name, "system");
  const Node& root = p.at(p.root);
  EXPECT_EQ(root.kind, NodeKind::kCall);
  EXPECT_EQ(p.at(root.callable).text, "posix.system");
}

TEST(PickleScanner, MalformedPicklesAreFormatErrorsWithTheOffset) {
  const std::vector<std::string> bad = {
      bin("\x80\x02\xff"),     // unknown opcode
      bin("\x80\x02h\x05."),   // memo index never stored
      bin("\x80\x02t."),       // TUPLE without MARK
      bin("\x80\x02R."),       // REDUCE on an empty stack
      bin("\x80\x09."),        // protocol 9
      bin("\x80\x02K\x01u."),  // SETITEMS without a dict
  };
  for (const auto& bytes : bad) {
    try {
      scan_pickle(bytes, "'x.pt' record 'x/data.pkl'");
      ADD_FAILURE() << "expected format::FormatError";
    } catch (const format::FormatError& e) {
      EXPECT_THAT(e.message(), HasSubstr("'x.pt' record 'x/data.pkl'"));
      EXPECT_THAT(e.message(), HasSubstr("at byte"));
    }
  }
}

TEST(PickleScanner, TruncatedPickleSaysSo) {
  EXPECT_THROW(scan_pickle(bin("\x80\x02X\x10\x00\x00\x00"
                               "ab"),
                           "t"),
               PickleTruncated);
  EXPECT_THROW(scan_pickle(bin("\x80\x02}"), "t"), PickleTruncated);
}

TEST(PickleScanner, CyclesAndDeepNestingDoNotCrash) {
  // A list that contains itself, and 100000 nested lists.
  EXPECT_NO_THROW(scan_pickle(bin("\x80\x02]q\x00h\x00"
                                  "a."),
                              "t"));
  std::string deep = "\x80\x02";
  for (int i = 0; i < 100000; ++i) deep += "]";
  for (int i = 0; i < 99999; ++i) deep += "a";
  deep += ".";
  EXPECT_NO_THROW(scan_pickle(deep, "t"));
}

}  // namespace
}  // namespace devcheck::detail
