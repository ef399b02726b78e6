#include "tools/weftrun/exit_status.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace weft::tools {
namespace {

// Real wait statuses, from real children, rather than statuses built with the same macros
// that the code under test decodes.
int StatusOfChildThat(void (*body)()) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(WeftrunExitStatus, CleanExit) {
  const int status = StatusOfChildThat([] { ::_exit(0); });
  EXPECT_FALSE(WaitStatusFailed(status));
  EXPECT_EQ(DescribeWaitStatus(status), "exited with code 0");
}

TEST(WeftrunExitStatus, NonZeroExit) {
  const int status = StatusOfChildThat([] { ::_exit(3); });
  EXPECT_TRUE(WaitStatusFailed(status));
  EXPECT_EQ(DescribeWaitStatus(status), "exited with code 3");
  EXPECT_EQ(ExitCodeForFailure(status), 1);
}

TEST(WeftrunExitStatus, KilledBySignal) {
  const int status = StatusOfChildThat([] { ::kill(::getpid(), SIGKILL); });
  EXPECT_TRUE(WaitStatusFailed(status));
  EXPECT_EQ(DescribeWaitStatus(status), "was killed by signal 9 (Killed)");
  EXPECT_EQ(ExitCodeForFailure(status), 128 + 9);
}

TEST(WeftrunExitStatus, DescribesSignals) {
  EXPECT_EQ(DescribeSignal(SIGINT), "signal 2 (Interrupt)");
  EXPECT_EQ(DescribeSignal(SIGTERM), "signal 15 (Terminated)");
}

}  // namespace
}  // namespace weft::tools
