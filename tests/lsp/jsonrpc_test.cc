// Content-Length framing (src/lsp/jsonrpc.cc): whole messages, split
// reads, and malformed headers reported and skipped.
#include "jsonrpc.h"

#include <gtest/gtest.h>

#include <string>

namespace devcheck::lsp {
namespace {

TEST(FrameReader, ReadsTwoMessagesFromOneChunk) {
  FrameReader r;
  r.feed(frame("{\"a\":1}") + frame("{\"b\":2}"));
  auto first = r.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "{\"a\":1}");
  auto second = r.next();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "{\"b\":2}");
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.pending(), 0U);
}

TEST(FrameReader, WaitsForTheWholeBodyAcrossReads) {
  FrameReader r;
  const std::string whole = frame("{\"method\":\"x\"}");
  for (std::size_t i = 0; i + 1 < whole.size(); ++i) {
    r.feed(whole.substr(i, 1));
    EXPECT_FALSE(r.next()) << "after byte " << i;
  }
  r.feed(whole.substr(whole.size() - 1));
  auto f = r.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->body, "{\"method\":\"x\"}");
}

TEST(FrameReader, AcceptsOtherHeadersAndAnyCase) {
  FrameReader r;
  r.feed("content-length:  2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
  auto f = r.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->error, "");
  EXPECT_EQ(f->body, "{}");
}

TEST(FrameReader, ReportsAHeaderWithoutLengthAndGoesOn) {
  FrameReader r;
  r.feed("Content-Type: x\r\n\r\n" + frame("{}"));
  auto bad = r.next();
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->error, "the message header has no Content-Length");
  auto good = r.next();
  ASSERT_TRUE(good);
  EXPECT_EQ(good->body, "{}");
}

TEST(FrameReader, ReportsALengthThatIsNotANumber) {
  FrameReader r;
  r.feed("Content-Length: 12abc\r\n\r\n");
  auto bad = r.next();
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->error, "Content-Length is not a number: '12abc'");
}

TEST(FrameReader, RefusesAHugeLengthAndSkipsItsBody) {
  FrameReader r;
  r.feed("Content-Length: 99999999999\r\n\r\n");
  auto bad = r.next();
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->error, "Content-Length 99999999999 is over the limit of 64 MiB");
}

TEST(FrameReader, ReportsAHeaderLineWithoutColon) {
  FrameReader r;
  r.feed("hello\r\n\r\n" + frame("[]"));
  auto bad = r.next();
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->error, "a header line has no ':' (expected Content-Length: N)");
  auto good = r.next();
  ASSERT_TRUE(good);
  EXPECT_EQ(good->body, "[]");
}

TEST(FrameReader, GivesUpOnAnEndlessHeader) {
  FrameReader r;
  r.feed(std::string(9000, 'x'));
  auto bad = r.next();
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->error, "the message header has no blank line within 8192 bytes");
  EXPECT_EQ(r.pending(), 3U);
}

}  // namespace
}  // namespace devcheck::lsp
