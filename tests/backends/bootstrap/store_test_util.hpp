// Shared fixtures for the bootstrap store tests: a server on a free loopback port with a
// fresh secret, clients connected to it, and a recorder for liveness events.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backends/bootstrap/handshake.hpp"
#include "backends/bootstrap/store.hpp"

namespace weft::backends::bootstrap::testing {

inline Clock::time_point In(int ms) { return Clock::now() + std::chrono::milliseconds(ms); }

inline int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

#define WEFT_ASSERT_OK(expr)                                            \
  do {                                                                  \
    const ::weft::Status weft_test_status_ = (expr);                    \
    ASSERT_TRUE(weft_test_status_.ok()) << weft_test_status_.message(); \
  } while (0)

// The secret every fixture's server and clients share; a fresh one per test.
inline std::string NewTestToken() {
  auto token = handshake::NewToken();
  EXPECT_TRUE(token.ok()) << token.status().message();
  return token.ok() ? *token : std::string(64, 'x');
}

class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    token_ = NewTestToken();
    auto server = StoreServer::Start(ServerOptions());
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(server).value();
  }

  // The fixture's server: loopback, any port, a world of 8, the fixture's secret.
  virtual StoreServer::Options ServerOptions() const {
    return {"127.0.0.1", 0, 8, StoreSecret::Key(token_), {}};
  }
  StoreClient::Options ClientOptions() const { return {StoreSecret::Key(token_)}; }

  std::unique_ptr<StoreClient> NewClient() { return ConnectTo(server_->port()); }

  std::unique_ptr<StoreClient> ConnectTo(uint16_t port, const std::string& host = "127.0.0.1") {
    auto client = StoreClient::Connect(host, port, In(5000), ClientOptions());
    EXPECT_TRUE(client.ok()) << client.status().message();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  std::string token_;
  std::unique_ptr<StoreServer> server_;
};

// Records the events a registered client receives, for tests to wait on.
class EventLog {
 public:
  StoreClient::EventHandler Handler() {
    return [this](const std::string& key, const Bytes& value) {
      std::lock_guard<std::mutex> lock(mu_);
      events_.emplace_back(key, value);
      cv_.notify_all();
    };
  }

  // The value of the first event with `key`, if it arrives within `ms`.
  std::optional<Bytes> WaitFor(const std::string& key, int ms) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<Bytes> found;
    cv_.wait_until(lock, In(ms), [&] {
      for (const auto& [k, v] : events_) {
        if (k == key) found = v;
      }
      return found.has_value();
    });
    return found;
  }

  size_t Count(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& event : events_) n += event.first == key;
    return n;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<std::string, Bytes>> events_;
};

// Starts the store test peer (store_peer_main.cpp) with `args` and WEFT_STORE_TOKEN=token
// (unset when empty); -1 on failure. `out_fd`, if given, receives the read end of a pipe on
// the peer's stdout; `fd_limit` > 0 caps the peer's open descriptors (RLIMIT_NOFILE).
inline pid_t SpawnPeer(std::vector<std::string> args, const std::string& token,
                       int* out_fd = nullptr, rlim_t fd_limit = 0) {
  args.insert(args.begin(), WEFT_STORE_PEER_BINARY);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("WEFT_STORE_TOKEN=", 0) != 0) env_text.emplace_back(*e);
  }
  if (!token.empty()) env_text.push_back("WEFT_STORE_TOKEN=" + token);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  int pipe_fds[2] = {-1, -1};
  if (out_fd != nullptr && pipe(pipe_fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    if (out_fd != nullptr) dup2(pipe_fds[1], STDOUT_FILENO);
    const rlimit limit{fd_limit, fd_limit};
    if (fd_limit > 0) setrlimit(RLIMIT_NOFILE, &limit);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  if (out_fd != nullptr) {
    close(pipe_fds[1]);
    *out_fd = pipe_fds[0];
  }
  return pid;
}

// Waits for a child process, killing it if it outlives `ms`. Returns the waitpid status.
inline int ReapChild(pid_t pid, int ms) {
  auto deadline = In(ms);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status;
}

}  // namespace weft::backends::bootstrap::testing
