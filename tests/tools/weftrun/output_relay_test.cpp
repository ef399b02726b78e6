#include "tools/weftrun/output_relay.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace weft::tools {
namespace {

TEST(WeftrunLinePrefixer, PrefixesCompleteLinesAndKeepsTheRest) {
  LinePrefixer lines("[3] ");
  EXPECT_EQ(lines.Feed("one\ntwo\nthr"), "[3] one\n[3] two\n");
  EXPECT_EQ(lines.Feed("ee"), "");
  EXPECT_EQ(lines.Feed("\n"), "[3] three\n");
  EXPECT_EQ(lines.Finish(), "");
}

TEST(WeftrunLinePrefixer, FinishTerminatesTheLastUnfinishedLine) {
  LinePrefixer lines("[0] ");
  EXPECT_EQ(lines.Feed("a\nno newline"), "[0] a\n");
  EXPECT_EQ(lines.Finish(), "[0] no newline\n");
  EXPECT_EQ(lines.Finish(), "");
}

TEST(WeftrunLinePrefixer, KeepsEmptyLines) {
  LinePrefixer lines("[1] ");
  EXPECT_EQ(lines.Feed("\n\nx\n"), "[1] \n[1] \n[1] x\n");
}

TEST(WeftrunLinePrefixer, EmptyPrefixPassesLinesThrough) {
  LinePrefixer lines("");
  EXPECT_EQ(lines.Feed("a\nb"), "a\n");
  EXPECT_EQ(lines.Finish(), "b\n");
}

TEST(WeftrunLinePrefixer, SplitsLinesLongerThanTheLimit) {
  LinePrefixer lines("> ", 4);
  EXPECT_EQ(lines.Feed("abcdefghij\n"), "> abcd\n> efgh\n> ij\n");
  // Exactly the limit, then its newline: one line, not an extra empty one.
  EXPECT_EQ(lines.Feed("abcd"), "");
  EXPECT_EQ(lines.Feed("\nxy"), "> abcd\n");
  EXPECT_EQ(lines.Feed("zw"), "");
  EXPECT_EQ(lines.Feed("v"), "> xyzw\n");
  EXPECT_EQ(lines.Finish(), "> v\n");
}

TEST(WeftrunWriteAll, WritesEverythingAndSurvivesAClosedReader) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  WriteAll(fds[1], "hello\n");
  char buf[16] = {};
  ASSERT_EQ(::read(fds[0], buf, sizeof buf), 6);
  EXPECT_EQ(std::string(buf, 6), "hello\n");
  ::close(fds[0]);
  // With SIGPIPE ignored (as weftrun does) a vanished reader is an error to drop, not a crash.
  auto* previous = ::signal(SIGPIPE, SIG_IGN);
  WriteAll(fds[1], "lost\n");
  ::signal(SIGPIPE, previous);
  ::close(fds[1]);
}

}  // namespace
}  // namespace weft::tools
