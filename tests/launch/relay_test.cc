// The launcher's line relay and signal self-pipe (src/launch/relay.cc).
#include "launch/relay.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <string>

namespace devcheck::detail {
namespace {

TEST(LineRelay, WritesOnlyWholeLinesEachWithThePrefixHoweverTheBytesArrive) {
  LineRelay relay(100);
  std::string sink;
  const std::string text = "first line\nsecond\n\nthird";
  for (const char c : text) relay.feed(&c, 1, "[rank1]: ", sink);
  EXPECT_EQ(sink, "[rank1]: first line\n[rank1]: second\n[rank1]: \n");
  relay.finish("[rank1]: ", sink);
  EXPECT_EQ(sink, "[rank1]: first line\n[rank1]: second\n[rank1]: \n[rank1]: third\n");
  const std::string ended = sink;
  relay.finish("[rank1]: ", sink);  // nothing pending: nothing more
  EXPECT_EQ(sink, ended);
}

TEST(LineRelay, CutsALongLineWhereTheCapFallsEachPieceItsOwnLine) {
  LineRelay relay(4);
  std::string sink;
  const std::string text = "abcdefghij\nxy";
  relay.feed(text.data(), 3, "", sink);
  relay.feed(text.data() + 3, text.size() - 3, "", sink);
  EXPECT_EQ(sink, "abcd\nefgh\nij\n");
  relay.finish("", sink);
  EXPECT_EQ(sink, "abcd\nefgh\nij\nxy\n");
}

TEST(SignalPipe, ASignalIsOneRecordOnThePipeAndTheOldHandlerComesBack) {
  struct sigaction before {};
  ::sigaction(SIGHUP, nullptr, &before);
  {
    const SignalPipe pipe;
    ::kill(::getpid(), SIGHUP);
    SignalRecord record{};
    ASSERT_EQ(::read(pipe.read_end(), &record, sizeof record), static_cast<ssize_t>(sizeof record));
    EXPECT_EQ(record.signo, SIGHUP);
    EXPECT_EQ(record.pid, ::getpid());
    EXPECT_LT(::read(pipe.read_end(), &record, sizeof record), 0);  // non-blocking, empty
  }
  struct sigaction after {};
  ::sigaction(SIGHUP, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
}  // namespace devcheck::detail
