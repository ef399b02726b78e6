// Authentication (SPEC §8 "Store security"): a connection that does not prove it knows the
// job's secret can do nothing, the secret never crosses the wire, a store that cannot prove
// it knows the secret gets nothing from a rank, and strangers cannot crowd out the job.
#include <gtest/gtest.h>

#include <thread>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/raw_peer.hpp"
#include "tests/backends/bootstrap/recording_proxy.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

bool Mentions(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

wire::Frame Publish(const std::string& key, const std::string& value) {
  wire::Frame f;
  f.verb = wire::Verb::kPublish;
  f.id = 1;
  f.keys = {key};
  f.values = {value};
  return f;
}

class StoreAuthTest : public StoreFixture {
 protected:
  StoreServer::Options ServerOptions() const override {
    StoreServer::Options options = StoreFixture::ServerOptions();
    options.limits.handshake_timeout = std::chrono::milliseconds(400);
    options.limits.max_unauthenticated = 8;
    options.limits.max_connections = max_connections_;
    return options;
  }

  std::unique_ptr<StoreClient> Rank(int32_t rank, EventLog& log) {
    auto client = NewClient();
    if (client == nullptr) return nullptr;
    Status status = client->Register(rank, log.Handler(), In(2000));
    EXPECT_TRUE(status.ok()) << status.message();
    return client;
  }

  uint32_t max_connections_ = 0;
};

TEST_F(StoreAuthTest, AVerbBeforeTheHandshakeIsClosedAndChangesNothing) {
  EventLog log0, log1;
  auto r0 = Rank(0, log0);
  auto r1 = Rank(1, log1);
  ASSERT_NE(r1, nullptr);
  auto stranger = RawPeer::Connect(server_->port());
  ASSERT_NE(stranger, nullptr);
  ASSERT_TRUE(stranger->Send(Publish(FailedKey(1), "killed by a stranger")));
  EXPECT_TRUE(stranger->ClosedWithin(1000));
  EXPECT_FALSE(log0.WaitFor(FailedKey(1), 300).has_value());
  EXPECT_FALSE(*r0->Check({FailedKey(1)}, In(2000)));
  // Garbage is closed too, and the store keeps serving the job.
  auto garbage = RawPeer::Connect(server_->port());
  ASSERT_TRUE(garbage->SendBytes(std::string(64, '\xAB')));
  EXPECT_TRUE(garbage->ClosedWithin(1000));
  WEFT_ASSERT_OK(r1->Set("still", "serving", In(2000)));
  EXPECT_EQ(*r0->Get("still", In(2000)), "serving");
}

TEST_F(StoreAuthTest, AWrongTokenFailsAtOnceWithAClearError) {
  auto start = Clock::now();
  auto client = StoreClient::Connect("127.0.0.1", server_->port(), In(10000),
                                     {StoreSecret::Key(NewTestToken())});
  EXPECT_LT(MsSince(start), 1000);
  EXPECT_EQ(client.status().code(), Code::kInvalidUsage);
  EXPECT_TRUE(Mentions(client.status(), "WEFT_STORE_TOKEN")) << client.status().message();
  EXPECT_TRUE(Mentions(client.status(), std::to_string(server_->port())))
      << client.status().message();
}

TEST_F(StoreAuthTest, AWrongProofIsClosed) {
  auto stranger = RawPeer::Connect(server_->port());
  ASSERT_NE(stranger, nullptr);
  // Knowing a different secret gets it as far as the server's proof, which it cannot check...
  EXPECT_FALSE(stranger->Authenticate(NewTestToken()));
  // ...and a proof of its own choosing is refused.
  auto forger = RawPeer::Connect(server_->port());
  wire::Frame hello;
  hello.verb = wire::Verb::kHello;
  hello.values = {std::string(handshake::kNonceBytes, 'n')};
  ASSERT_TRUE(forger->Send(hello));
  ASSERT_TRUE(forger->Recv(2000).has_value());
  wire::Frame proof;
  proof.verb = wire::Verb::kProof;
  proof.values = {std::string(handshake::kProofBytes, 'p')};
  ASSERT_TRUE(forger->Send(proof));
  EXPECT_TRUE(forger->ClosedWithin(1000));
}

TEST_F(StoreAuthTest, ARecordedHandshakeCannotBeReplayed) {
  std::string recorded;
  auto rank = RawPeer::Connect(server_->port());
  ASSERT_TRUE(rank->Authenticate(token_, &recorded));
  auto replayer = RawPeer::Connect(server_->port());
  ASSERT_TRUE(replayer->SendBytes(recorded));  // the rank's Hello and Proof, byte for byte
  auto challenge = replayer->Recv(2000);
  ASSERT_TRUE(challenge.has_value());
  EXPECT_EQ(challenge->verb, wire::Verb::kChallenge);
  EXPECT_TRUE(replayer->ClosedWithin(1000));  // the old proof does not fit the new nonce
}

TEST_F(StoreAuthTest, TheSecretNeverCrossesTheWire) {
  RecordingProxy proxy(server_->port());
  {
    auto client = StoreClient::Connect("127.0.0.1", proxy.port(), In(2000), ClientOptions());
    EXPECT_TRUE(client.ok()) << client.status().message();
    if (client.ok()) {  // the bytes below are checked either way
      EventLog log;
      EXPECT_TRUE((*client)->Register(2, log.Handler(), In(2000)).ok());
      EXPECT_TRUE((*client)->Set("k", "v", In(2000)).ok());
      EXPECT_EQ(*(*client)->Get("k", In(2000)), "v");
      EXPECT_TRUE((*client)->Leave(In(2000)).ok());
    }
  }
  const std::string wire_bytes = proxy.Recorded();
  // The handshake went through the proxy: magic, version and verb of a HELLO.
  const std::string hello = {static_cast<char>(wire::kMagic), static_cast<char>(wire::kVersion),
                             static_cast<char>(wire::Verb::kHello)};
  EXPECT_NE(proxy.ToServer().find(hello), std::string::npos);
  EXPECT_EQ(wire_bytes.find(token_), std::string::npos);
  EXPECT_EQ(wire_bytes.find(token_.substr(0, 16)), std::string::npos);
}

// A listener that is not the job's store: it answers Hello with a made-up challenge.
TEST_F(StoreAuthTest, ARankGivesNothingToAnImpostor) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string after_challenge;
  bool client_closed = false;
  std::thread impostor([&] {
    const int fd = ::accept(listener, nullptr, nullptr);
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);  // the Hello
    wire::Frame challenge;
    challenge.verb = wire::Verb::kChallenge;
    challenge.values = {std::string(handshake::kNonceBytes, 's'),
                        std::string(handshake::kProofBytes, 'p')};
    const std::string bytes = wire::Encode(challenge);
    if (n > 0) ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0)
      after_challenge.append(buf, static_cast<size_t>(n));
    client_closed = n <= 0;
    ::close(fd);
  });
  auto client = StoreClient::Connect("127.0.0.1", ntohs(addr.sin_port), In(5000), ClientOptions());
  impostor.join();
  ::close(listener);
  EXPECT_EQ(client.status().code(), Code::kInvalidUsage);
  EXPECT_TRUE(Mentions(client.status(), "could not prove")) << client.status().message();
  EXPECT_TRUE(client_closed);
  EXPECT_TRUE(after_challenge.empty()) << "the rank sent " << after_challenge.size() << " bytes";
}

TEST_F(StoreAuthTest, AnIdleStrangerIsClosedAfterTheHandshakeTimeout) {
  auto stranger = RawPeer::Connect(server_->port());
  ASSERT_NE(stranger, nullptr);
  auto start = Clock::now();
  EXPECT_TRUE(stranger->ClosedWithin(3000));
  EXPECT_GE(MsSince(start), 300);
}

TEST_F(StoreAuthTest, StrangersCannotCrowdOutTheJob) {
  std::vector<std::unique_ptr<RawPeer>> strangers;
  for (int i = 0; i < 100; ++i) {
    strangers.push_back(RawPeer::Connect(server_->port()));
    ASSERT_NE(strangers.back(), nullptr);
  }
  auto start = Clock::now();
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  EXPECT_LT(MsSince(start), 2000);
  WEFT_ASSERT_OK(client->Set("k", "v", In(2000)));
  size_t open = 0;
  for (auto& s : strangers) open += !s->ClosedWithin(10);
  EXPECT_LE(open, 8u) << "unauthenticated connections beyond the cap stay open";
}

TEST_F(StoreAuthTest, AuthenticatedConnectionsAreCapped) {
  server_.reset();
  max_connections_ = 2;
  server_ = std::move(StoreServer::Start(ServerOptions())).value();
  auto a = NewClient();
  auto b = NewClient();
  ASSERT_NE(b, nullptr);
  auto c = StoreClient::Connect("127.0.0.1", server_->port(), In(5000), ClientOptions());
  EXPECT_EQ(c.status().code(), Code::kNotAvailable);
  EXPECT_TRUE(Mentions(c.status(), "WEFT_STORE_MAX_CONNECTIONS")) << c.status().message();
  a.reset();
  auto d = StoreClient::Connect("127.0.0.1", server_->port(), In(5000), ClientOptions());
  for (int i = 0; i < 50 && !d.ok(); ++i) {  // a's close reaches the server asynchronously
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    d = StoreClient::Connect("127.0.0.1", server_->port(), In(5000), ClientOptions());
  }
  EXPECT_TRUE(d.ok()) << d.status().message();
}

TEST_F(StoreAuthTest, RegistrationOutsideTheWorldIsRefused) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  Status status = client->Register(8, nullptr, In(2000));  // the fixture's world has 8 ranks
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(status, "[0, 8)")) << status.message();
  WEFT_ASSERT_OK(client->Register(7, nullptr, In(2000)));
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
