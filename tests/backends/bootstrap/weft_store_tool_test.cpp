// The standalone weft-store executable: it announces its port, serves, and exits cleanly
// on SIGTERM; it authenticates with WEFT_STORE_TOKEN, with its own token file on loopback,
// and refuses a network address without either a token or WEFT_STORE_INSECURE=1.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>

#include <csignal>
#include <string>

#include "backends/bootstrap/store.hpp"
#include "backends/bootstrap/token_file.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

#ifndef WEFT_STORE_BINARY
#error "WEFT_STORE_BINARY must name the weft-store executable"
#endif

namespace weft::backends::bootstrap::testing {
namespace {

struct Child {
  pid_t pid = -1;
  int out = -1;  // the child's stdout
  int err = -1;  // the child's stderr
};

// Runs weft-store with `args` and the test's environment without WEFT_STORE_* variables,
// plus `env`.
Child Spawn(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), WEFT_STORE_BINARY);
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("WEFT_STORE", 0) != 0) env.emplace_back(*e);
  }
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    std::vector<char*> argv, envp;
    for (auto& arg : args) argv.push_back(arg.data());
    for (auto& e : env) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  return {pid, out[0], err[0]};
}

// The first line the child prints on `fd`, or "" if none comes within `ms`.
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

// The port from "weft-store listening on 127.0.0.1:P", or -1.
int ListeningPort(const Child& child) {
  const std::string line = ReadLine(child.out, 5000);
  const std::string banner = "weft-store listening on 127.0.0.1:";
  EXPECT_EQ(line.rfind(banner, 0), 0u) << "got: " << line;
  if (line.rfind(banner, 0) != 0) return -1;
  return std::stoi(line.substr(banner.size()));
}

int Terminate(Child& child) {
  kill(child.pid, SIGTERM);
  int status = ReapChild(child.pid, 5000);
  close(child.out);
  close(child.err);
  return status;
}

void ExpectServes(uint16_t port, const StoreSecret& secret) {
  auto client = StoreClient::Connect("127.0.0.1", port, In(5000), {secret});
  ASSERT_TRUE(client.ok()) << client.status().message();
  WEFT_ASSERT_OK((*client)->Set("k", "v", In(2000)));
  EXPECT_EQ(*(*client)->Get("k", In(2000)), "v");
}

TEST(WeftStoreTool, ServesWithATokenUntilSigterm) {
  const std::string token = NewTestToken();
  Child child = Spawn({"--host", "127.0.0.1", "--port", "0", "--world-size", "2"},
                      {"WEFT_STORE_TOKEN=" + token});
  ASSERT_GT(child.pid, 0);
  const int port = ListeningPort(child);
  ASSERT_GT(port, 0);
  ExpectServes(static_cast<uint16_t>(port), StoreSecret::Key(token));
  auto stranger = StoreClient::Connect("127.0.0.1", static_cast<uint16_t>(port), In(5000),
                                       {StoreSecret::Key(NewTestToken())});
  EXPECT_EQ(stranger.status().code(), Code::kInvalidUsage) << stranger.status().message();
  const int status = Terminate(child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(WeftStoreTool, LoopbackWithoutATokenUsesItsTokenFile) {
  Child child = Spawn({"--port", "0", "--world-size", "2"});  // host 127.0.0.1 by default
  ASSERT_GT(child.pid, 0);
  const int port = ListeningPort(child);
  ASSERT_GT(port, 0);
  ExpectServes(static_cast<uint16_t>(port), StoreSecret::LocalFile());
  const std::string path = detail::TokenDirectories().front() + "/" +
                           detail::TokenFileName("127.0.0.1", static_cast<uint16_t>(port));
  struct stat st {};
  bool found = stat(path.c_str(), &st) == 0;
  if (!found) {  // $XDG_RUNTIME_DIR unusable: the /tmp fallback
    const std::string fallback = detail::TokenDirectories().back() + "/" +
                                 detail::TokenFileName("127.0.0.1", static_cast<uint16_t>(port));
    found = stat(fallback.c_str(), &st) == 0;
  }
  ASSERT_TRUE(found) << path;
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const int status = Terminate(child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  auto token = detail::ReadPublishedToken("127.0.0.1", static_cast<uint16_t>(port));
  EXPECT_EQ(token.status().code(), Code::kNotAvailable) << "the token file outlived the store";
}

TEST(WeftStoreTool, NetworkAddressNeedsATokenOrInsecure) {
  Child child = Spawn({"--host", "0.0.0.0", "--port", "0", "--world-size", "2"});
  ASSERT_GT(child.pid, 0);
  const std::string error = ReadLine(child.err, 5000);
  const int status = ReapChild(child.pid, 5000);
  close(child.out);
  close(child.err);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "status " << status;
  EXPECT_NE(error.find("WEFT_STORE_TOKEN"), std::string::npos) << error;
  EXPECT_NE(error.find("WEFT_STORE_INSECURE=1"), std::string::npos) << error;

  Child insecure =
      Spawn({"--host", "0.0.0.0", "--port", "0", "--world-size", "2"}, {"WEFT_STORE_INSECURE=1"});
  const std::string line = ReadLine(insecure.out, 5000);
  const std::string banner = "weft-store listening on 0.0.0.0:";
  ASSERT_EQ(line.rfind(banner, 0), 0u) << "got: " << line;
  ExpectServes(static_cast<uint16_t>(std::stoi(line.substr(banner.size()))),
               StoreSecret::Insecure());
  const int insecure_status = Terminate(insecure);
  EXPECT_TRUE(WIFEXITED(insecure_status) && WEXITSTATUS(insecure_status) == 0);
}

TEST(WeftStoreTool, RejectsBadArguments) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--port", "99999"},
                                        {"--port", "0"},  // no --world-size
                                        {"--world-size", "0"}}) {
    Child child = Spawn(args);
    ASSERT_GT(child.pid, 0);
    int status = ReapChild(child.pid, 5000);
    close(child.out);
    close(child.err);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << "status " << status;
  }
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
