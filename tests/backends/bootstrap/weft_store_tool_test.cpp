// The standalone weft-store executable: it announces its port, serves, and exits cleanly
// on SIGTERM.
#include <gtest/gtest.h>
#include <poll.h>

#include <csignal>
#include <string>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

#ifndef WEFT_STORE_BINARY
#error "WEFT_STORE_BINARY must name the weft-store executable"
#endif

namespace weft::backends::bootstrap::testing {
namespace {

struct Child {
  pid_t pid = -1;
  int out = -1;  // the child's stdout
};

Child Spawn(std::vector<std::string> args) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  return {pid, pipe_fds[0]};
}

// The first line the child prints, or "" if none comes within `ms`.
std::string ReadLine(int fd, int ms) {
  std::string line;
  auto deadline = In(ms);
  char c = 0;
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    if (read(fd, &c, 1) != 1 || c == '\n') break;
    line.push_back(c);
  }
  return line;
}

TEST(WeftStoreTool, ServesUntilSigterm) {
  Child child = Spawn({WEFT_STORE_BINARY, "--host", "127.0.0.1", "--port", "0"});
  ASSERT_GT(child.pid, 0);
  std::string line = ReadLine(child.out, 5000);
  const std::string banner = "weft-store listening on 127.0.0.1:";
  ASSERT_EQ(line.rfind(banner, 0), 0u) << "got: " << line;
  int port = std::stoi(line.substr(banner.size()));
  ASSERT_GT(port, 0);
  {
    auto client = StoreClient::Connect("127.0.0.1", static_cast<uint16_t>(port), In(5000));
    ASSERT_TRUE(client.ok()) << client.status().message();
    WEFT_ASSERT_OK((*client)->Set("k", "v", In(2000)));
    EXPECT_EQ(*(*client)->Get("k", In(2000)), "v");
  }
  kill(child.pid, SIGTERM);
  int status = ReapChild(child.pid, 5000);
  close(child.out);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(WeftStoreTool, RejectsBadArguments) {
  Child child = Spawn({WEFT_STORE_BINARY, "--port", "99999"});
  ASSERT_GT(child.pid, 0);
  int status = ReapChild(child.pid, 5000);
  close(child.out);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << "status " << status;
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
