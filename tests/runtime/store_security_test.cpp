// The store's security through the public C ABI (SPEC §8 "Store security"): real worker
// processes (fault_worker.cpp) join a world whose store authenticates every connection, while
// the driver plays a stranger on the same machine. Each case is one launch of a few seconds.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "backends/bootstrap/handshake.hpp"
#include "backends/bootstrap/store_client.hpp"
#include "backends/bootstrap/wire.hpp"
#include "tests/runtime/worker_group.hpp"
#include "tests/support/net.hpp"
#include "weft/weft.h"

namespace weft::test {
namespace {

using namespace std::chrono_literals;
namespace bs = weft::backends::bootstrap;

constexpr const char* kFloats = "4096";

std::string NewToken() { return *bs::handshake::NewToken(); }

// `n` ranks of a world whose store is at host:port, each with `extra` in its environment.
std::vector<WorkerSpec> World(int n, const std::string& store, const std::vector<std::string>& args,
                              const std::vector<std::string>& extra = {}) {
  std::vector<WorkerSpec> specs;
  for (int r = 0; r < n; ++r) {
    WorkerSpec s;
    s.args = args;
    s.env = {"WEFT_RANK=" + std::to_string(r), "WEFT_WORLD_SIZE=" + std::to_string(n),
             "WEFT_STORE=" + store, "WEFT_BACKEND=gloo", "WEFT_CONNECT_TIMEOUT_MS=10000"};
    s.env.insert(s.env.end(), extra.begin(), extra.end());
    if (!std::getenv("WEFT_LOG_LEVEL")) s.env.push_back("WEFT_LOG_LEVEL=off");
    specs.push_back(std::move(s));
  }
  return specs;
}

std::string Dump(const WorkerGroup& g) {
  std::string out;
  for (size_t i = 0; i < g.size(); ++i)
    for (const Report& r : g.reports(i))
      out += "  worker " + std::to_string(i) + ": " + FormatReport(r);
  return out.empty() ? "  (no reports)\n" : out;
}

bool AllHave(const WorkerGroup& g, const std::string& kind) {
  for (size_t i = 0; i < g.size(); ++i)
    if (!g.Has(i, kind)) return false;
  return true;
}

bool AnyHas(const WorkerGroup& g, const std::string& kind) {
  for (size_t i = 0; i < g.size(); ++i)
    if (g.Has(i, kind)) return true;
  return false;
}

// What a stranger on this machine tries: publish failed/1 without the handshake, then with a
// made-up secret. Returns whether the store closed the first connection.
bool StrangerTries(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool closed = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    bs::wire::Frame publish;
    publish.verb = bs::wire::Verb::kPublish;
    publish.id = 1;
    publish.keys = {"failed/1"};
    publish.values = {"a stranger says rank 1 died"};
    const std::string bytes = bs::wire::Encode(publish);
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[256];
    closed = ::recv(fd, buf, sizeof(buf), 0) <= 0;
  }
  ::close(fd);
  auto forged = bs::StoreClient::Connect("127.0.0.1", port, bs::Clock::now() + 2s,
                                         {bs::StoreSecret::Key(NewToken())});
  EXPECT_FALSE(forged.ok()) << "a made-up secret was accepted";
  return closed;
}

// A world looping on allreduce ignores the stranger; killing a rank afterwards still reaches
// every survivor through the store, so the store kept serving the job.
void ExpectStrangerIsIgnored(const std::vector<std::string>& extra_env) {
  const int port = PickFreePort();
  const auto deadline = Clock::now() + 40s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(3, "127.0.0.1:" + std::to_string(port),
                                         {"loop", "30000", kFloats}, extra_env));
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, "ready") || AnyHas(g, "op"); }, deadline))
      << Dump(g);
  ASSERT_FALSE(AnyHas(g, "op")) << Dump(g);
  EXPECT_TRUE(StrangerTries(static_cast<uint16_t>(port)));
  EXPECT_FALSE(g.ReadUntil([&] { return AnyHas(g, "op"); }, Clock::now() + 1500ms))
      << "the stranger disturbed the job:\n"
      << Dump(g);
  g.Signal(2, SIGKILL);
  ASSERT_TRUE(g.ReadUntil([&] { return g.Has(0, "op") && g.Has(1, "op"); }, deadline)) << Dump(g);
  for (size_t i : {0, 1}) {
    const Report op = *g.Find(i, "op");
    EXPECT_EQ(op.status, WEFT_ERR_PEER_FAILURE) << "rank " << i << ": " << op.message;
    EXPECT_EQ(op.failed_rank, 2) << "rank " << i << ": " << op.message;
  }
  for (size_t i : {0, 1}) g.Release(i);
  ASSERT_TRUE(g.ReadUntil([&] { return g.Has(0, "destroy") && g.Has(1, "destroy"); }, deadline))
      << Dump(g);
}

TEST(StoreSecurityTest, AJobWithATokenIgnoresAStranger) {
  ExpectStrangerIsIgnored({"WEFT_STORE_TOKEN=" + NewToken()});
}

TEST(StoreSecurityTest, ALoopbackJobWithoutATokenIgnoresAStranger) { ExpectStrangerIsIgnored({}); }

// Every rank creates and destroys its context cleanly.
void ExpectCreates(const std::string& store, const std::vector<std::string>& extra_env) {
  const auto deadline = Clock::now() + 30s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(2, store, {"create"}, extra_env));
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, "create"); }, deadline)) << store << "\n"
                                                                           << Dump(g);
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_EQ(g.Find(i, "create")->status, WEFT_OK) << store << "\n" << Dump(g);
  }
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, "destroy"); }, deadline)) << Dump(g);
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(g.Find(i, "destroy")->status, WEFT_OK) << store << "\n" << Dump(g);
  }
}

TEST(StoreSecurityTest, Ipv6AndAllOf127AreLoopbackStores) {
  ExpectCreates("[::1]:" + std::to_string(PickFreePort()), {});
  ExpectCreates("127.0.0.2:" + std::to_string(PickFreePort()), {});
}

TEST(StoreSecurityTest, ANetworkStoreNeedsATokenOrInsecure) {
  const std::string address = weft_test::NetworkAddress();
  if (address.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address";
  const std::string store = address + ":" + std::to_string(PickFreePort());
  {
    const auto deadline = Clock::now() + 15s;
    WorkerGroup g(WEFT_FAULT_WORKER, World(2, store, {"create"}));
    ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, "create"); }, deadline)) << Dump(g);
    for (size_t i = 0; i < g.size(); ++i) {
      const Report c = *g.Find(i, "create");
      EXPECT_EQ(c.status, WEFT_ERR_INVALID_ARGUMENT) << c.message;
      EXPECT_LT(c.seconds(), 2.0);
      EXPECT_NE(c.message.find("WEFT_STORE_TOKEN"), std::string::npos) << c.message;
      EXPECT_NE(c.message.find("WEFT_STORE_INSECURE=1"), std::string::npos) << c.message;
    }
  }
  ExpectCreates(store, {"WEFT_STORE_TOKEN=" + NewToken()});
  ExpectCreates(address + ":" + std::to_string(PickFreePort()), {"WEFT_STORE_INSECURE=1"});
}

}  // namespace
}  // namespace weft::test
