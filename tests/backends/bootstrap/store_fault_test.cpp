// Deadlines and a vanishing store: every call returns a clean error in bounded time.
#include <gtest/gtest.h>

#include <thread>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

using StoreFaultTest = StoreFixture;

bool Mentions(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

TEST_F(StoreFaultTest, GetTimesOutAtItsDeadline) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto start = Clock::now();
  auto value = client->Get("never", In(200));
  int64_t elapsed = MsSince(start);
  EXPECT_EQ(value.status().code(), Code::kTimeout);
  EXPECT_GE(elapsed, 190);
  EXPECT_LE(elapsed, 1500);
  EXPECT_TRUE(Mentions(value.status(), "'never'")) << value.status().message();
  EXPECT_TRUE(Mentions(value.status(), " ms")) << value.status().message();
  // The connection is still usable after a timeout.
  WEFT_ASSERT_OK(client->Set("never", "now", In(2000)));
  EXPECT_EQ(*client->Get("never", In(2000)), "now");
}

TEST_F(StoreFaultTest, WaitTimeoutNamesTheKeys) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  WEFT_ASSERT_OK(client->Set("present", "1", In(2000)));
  auto start = Clock::now();
  Status status = client->Wait({"present", "absent1", "absent2"}, In(200));
  EXPECT_EQ(status.code(), Code::kTimeout);
  EXPECT_GE(MsSince(start), 190);
  EXPECT_LE(MsSince(start), 1500);
  EXPECT_TRUE(Mentions(status, "'absent1'")) << status.message();
}

TEST_F(StoreFaultTest, ExpiredDeadlineFailsFast) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto start = Clock::now();
  EXPECT_EQ(client->Get("nope", Clock::now()).status().code(), Code::kTimeout);
  EXPECT_LT(MsSince(start), 500);
}

TEST_F(StoreFaultTest, ServerStoppedMidGetFailsPromptly) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  const std::string where = "127.0.0.1:" + std::to_string(server_->port());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    server_->Stop();
  });
  auto start = Clock::now();
  auto value = client->Get("pending", In(10000));
  stopper.join();
  EXPECT_LT(MsSince(start), 2000);
  EXPECT_EQ(value.status().code(), Code::kPeerFailure);
  EXPECT_TRUE(Mentions(value.status(), where)) << value.status().message();
  EXPECT_TRUE(Mentions(value.status(), "lost")) << value.status().message();
  // Later calls fail at once too.
  start = Clock::now();
  EXPECT_EQ(client->Set("after", "x", In(10000)).code(), Code::kPeerFailure);
  EXPECT_LT(MsSince(start), 500);
}

TEST_F(StoreFaultTest, ServerGoneBeforeTheCall) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  server_.reset();
  auto start = Clock::now();
  EXPECT_EQ(client->Add("n", 1, In(10000)).status().code(), Code::kPeerFailure);
  EXPECT_EQ(client->Get("n", In(10000)).status().code(), Code::kPeerFailure);
  EXPECT_LT(MsSince(start), 2000);
}

TEST_F(StoreFaultTest, CloseAbortsPendingCalls) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    client->Close();
  });
  auto start = Clock::now();
  auto value = client->Get("pending", In(10000));
  closer.join();
  EXPECT_LT(MsSince(start), 2000);
  EXPECT_EQ(value.status().code(), Code::kAborted) << value.status().message();
  EXPECT_EQ(client->Set("k", "v", In(1000)).code(), Code::kAborted);
}

TEST_F(StoreFaultTest, ConnectRetriesUntilTheServerComesUp) {
  uint16_t port = server_->port();
  server_.reset();  // frees the port; the server comes back on it later
  std::unique_ptr<StoreServer> late;
  std::thread starter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    StoreServer::Options options = ServerOptions();
    options.port = port;
    auto server = StoreServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status().message();
    late = std::move(server).value();
  });
  auto start = Clock::now();
  auto client = StoreClient::Connect("127.0.0.1", port, In(5000), ClientOptions());
  starter.join();
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_GE(MsSince(start), 250);
  WEFT_ASSERT_OK((*client)->Set("k", "v", In(2000)));
}

TEST_F(StoreFaultTest, ConnectTimesOutWhenNoServerComes) {
  uint16_t port = server_->port();
  server_.reset();
  auto start = Clock::now();
  auto client = StoreClient::Connect("127.0.0.1", port, In(300), ClientOptions());
  int64_t elapsed = MsSince(start);
  EXPECT_EQ(client.status().code(), Code::kTimeout);
  EXPECT_GE(elapsed, 290);
  EXPECT_LE(elapsed, 1500);
  EXPECT_TRUE(Mentions(client.status(), std::to_string(port))) << client.status().message();
}

TEST_F(StoreFaultTest, StartFailsCleanlyOnABusyPort) {
  StoreServer::Options options = ServerOptions();
  options.port = server_->port();
  auto again = StoreServer::Start(options);
  EXPECT_EQ(again.status().code(), Code::kSystem);
  EXPECT_TRUE(Mentions(again.status(), std::to_string(server_->port())))
      << again.status().message();
  options.host = "no-such-host.invalid";
  options.port = 0;
  auto unresolvable = StoreServer::Start(options);
  EXPECT_EQ(unresolvable.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(unresolvable.status(), "'no-such-host.invalid'"))
      << unresolvable.status().message();
}

TEST_F(StoreFaultTest, ServesIpv6AndWildcardHosts) {
  for (const char* host : {"0.0.0.0", "::"}) {
    StoreServer::Options options = ServerOptions();
    options.host = host;
    auto server = StoreServer::Start(options);
    if (!server.ok() && std::string(host) == "::") continue;  // no IPv6 on this machine
    ASSERT_TRUE(server.ok()) << server.status().message();
    auto client = ConnectTo((*server)->port());
    ASSERT_NE(client, nullptr) << host;
    WEFT_ASSERT_OK(client->Set("k", host, In(2000)));
    EXPECT_EQ(*client->Get("k", In(2000)), host);
  }
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
