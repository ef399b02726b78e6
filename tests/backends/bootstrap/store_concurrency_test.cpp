// Atomicity under contention: many clients (threads, then separate processes) hammering one
// server must produce exact counts.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/store_hammer.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

constexpr int kClients = 8;
constexpr int kOpsPerClient = 10000;

using StoreConcurrencyTest = StoreFixture;

constexpr int64_t kExpectedAdds = int64_t{kClients} * HammerAdds(kOpsPerClient);

TEST_F(StoreConcurrencyTest, AddIsAtomicAcrossThreads) {
  std::vector<std::unique_ptr<StoreClient>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(NewClient());
  ASSERT_NE(clients.back(), nullptr);
  std::vector<int> errors(kClients, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] { errors[i] = Hammer(*clients[i], i, kOpsPerClient); });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kClients; ++i) EXPECT_EQ(errors[i], 0) << "client " << i;
  EXPECT_EQ(*clients[0]->Add("counter", 0, In(2000)), kExpectedAdds);
}

TEST_F(StoreConcurrencyTest, AddIsAtomicAcrossProcesses) {
  std::vector<pid_t> children;
  const std::string port = std::to_string(server_->port());
  for (int i = 0; i < kClients; ++i) {
    children.push_back(
        SpawnPeer({"hammer", port, std::to_string(i), std::to_string(kOpsPerClient)}, token_));
    ASSERT_GT(children.back(), 0);
  }
  for (pid_t pid : children) {
    int status = ReapChild(pid, 60000);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(*client->Add("counter", 0, In(2000)), kExpectedAdds);
}

// CompareSet as a lock-free increment: lost updates would show up as a short count. Each
// write is tagged with its writer so that success (reply == desired) is unambiguous.
TEST_F(StoreConcurrencyTest, CompareSetIncrementsAreNotLost) {
  constexpr int kIncrements = 300;
  std::vector<std::unique_ptr<StoreClient>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(NewClient());
  ASSERT_NE(clients.back(), nullptr);
  WEFT_ASSERT_OK(clients[0]->Set("cas", "0", In(2000)));
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      auto& client = *clients[i];
      for (int n = 0; n < kIncrements; ++n) {
        Bytes seen = *client.Get("cas", In(10000));
        while (true) {
          Bytes next = std::to_string(std::stoll(seen) + 1) + "#" + std::to_string(i);
          Bytes now = *client.CompareSet("cas", seen, next, In(10000));
          if (now == next) break;
          seen = now;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(std::stoll(*clients[0]->Get("cas", In(2000))), kClients * kIncrements);
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
