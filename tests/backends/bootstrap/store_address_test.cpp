// Where the store listens and how its host is looked up (SPEC §8 "Store security"): exactly
// the named address (IPv6 and all of 127/8 included), a host that does not exist fails at
// once, and the secret policy tells loopback stores from ones other machines can reach.
#include <gtest/gtest.h>

#include "backends/bootstrap/client_socket.hpp"
#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"
#include "tests/support/net.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

bool Mentions(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

bool Reachable(const std::string& host, uint16_t port) {
  return detail::ClientSocket::Connect(host, port, In(500)).ok();
}

using StoreAddressTest = StoreFixture;

TEST_F(StoreAddressTest, AnUnresolvableHostFailsWithinASecond) {
  auto start = Clock::now();
  auto client = StoreClient::Connect("no-such-host.invalid", 29500, In(10000), ClientOptions());
  EXPECT_LT(MsSince(start), 1000);
  EXPECT_EQ(client.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(client.status(), "'no-such-host.invalid'")) << client.status().message();
  start = Clock::now();
  auto secret = ChooseStoreSecret(std::nullopt, false, "no-such-host.invalid", 29500);
  EXPECT_LT(MsSince(start), 1000);
  EXPECT_EQ(secret.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(secret.status(), "'no-such-host.invalid'")) << secret.status().message();
}

TEST_F(StoreAddressTest, ServesIpv6LoopbackAndAllOf127) {
  for (const char* host : {"::1", "127.0.0.2", "127.1.2.3"}) {
    StoreServer::Options options = ServerOptions();
    options.host = host;
    auto server = StoreServer::Start(options);
    ASSERT_TRUE(server.ok()) << host << ": " << server.status().message();
    auto client = ConnectTo((*server)->port(), host);
    ASSERT_NE(client, nullptr) << host;
    WEFT_ASSERT_OK(client->Set("k", host, In(2000)));
    EXPECT_EQ(*client->Get("k", In(2000)), host);
  }
}

TEST_F(StoreAddressTest, BindsOnlyTheNamedAddress) {
  const uint16_t port = server_->port();  // the fixture's store, on 127.0.0.1
  EXPECT_TRUE(Reachable("127.0.0.1", port));
  EXPECT_FALSE(Reachable("127.0.0.2", port));
  EXPECT_FALSE(Reachable("::1", port));
  const std::string network = weft_test::NetworkAddress();
  if (network.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address";
  EXPECT_FALSE(Reachable(network, port));
  StoreServer::Options options = ServerOptions();
  options.host = network;
  auto server = StoreServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status().message();
  EXPECT_TRUE(Reachable(network, (*server)->port()));
  EXPECT_FALSE(Reachable("127.0.0.1", (*server)->port()));
}

TEST_F(StoreAddressTest, AnAddressOfAnotherMachineCannotBeServed) {
  StoreServer::Options options = ServerOptions();
  options.host = "192.0.2.254";  // TEST-NET-1: on no machine
  auto server = StoreServer::Start(options);
  EXPECT_EQ(server.status().code(), Code::kSystem);
  EXPECT_TRUE(Mentions(server.status(), "192.0.2.254")) << server.status().message();
}

TEST(StoreSecretPolicy, LoopbackMeansEveryAddressIsLoopback) {
  for (const char* host : {"127.0.0.1", "127.0.0.2", "::1", "localhost"}) {
    auto loopback = IsLoopbackHost(host);
    ASSERT_TRUE(loopback.ok()) << host << ": " << loopback.status().message();
    EXPECT_TRUE(*loopback) << host;
  }
  EXPECT_FALSE(*IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(*IsLoopbackHost("::"));
  EXPECT_FALSE(*IsLoopbackHost("192.0.2.1"));
}

TEST(StoreSecretPolicy, TokenThenLoopbackFileThenInsecureElseRefused) {
  auto given = ChooseStoreSecret(std::string("a-token-of-some-length"), false, "10.0.0.1", 1);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->kind(), StoreSecret::Kind::kKey);
  EXPECT_EQ(given->key(), "a-token-of-some-length");
  auto local = ChooseStoreSecret(std::nullopt, false, "127.0.0.2", 1);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->kind(), StoreSecret::Kind::kLocalFile);
  auto refused = ChooseStoreSecret(std::nullopt, false, "192.0.2.1", 29500);
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(refused.status(), "WEFT_STORE_TOKEN")) << refused.status().message();
  EXPECT_TRUE(Mentions(refused.status(), "WEFT_STORE_INSECURE=1")) << refused.status().message();
  EXPECT_TRUE(Mentions(refused.status(), "192.0.2.1:29500")) << refused.status().message();
  auto insecure = ChooseStoreSecret(std::nullopt, true, "192.0.2.1", 29500);
  ASSERT_TRUE(insecure.ok());
  EXPECT_EQ(insecure->key(), StoreSecret::Insecure().key());
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
