// Resource limits (SPEC §8 "Store security"): message size, lying length prefixes, unread
// replies, stored bytes and events. Memory is measured on a store in a process of its own
// (bootstrap_store_peer serve), so that the test's own buffers do not count.
#include <gtest/gtest.h>
#include <poll.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/raw_peer.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

constexpr int64_t kMiB = 1 << 20;

bool Mentions(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

// Resident memory of a process, from /proc/<pid>/statm.
int64_t ResidentBytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// CPU time a process has used (user + system), from /proc/<pid>/stat.
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream fields(line.substr(line.rfind(')') + 2));  // after "pid (comm) "
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state .. cmajflt
  double user = 0, system = 0;
  fields >> user >> system;
  return (user + system) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// A store in a process of its own, for memory measurements; killed on destruction.
class StorePeer {
 public:
  StorePeer(const std::string& token, int64_t max_message, rlim_t fd_limit = 0) {
    int out = -1;
    pid_ = SpawnPeer({"serve", "4", std::to_string(max_message)}, token, &out, fd_limit);
    std::string line;
    char c = 0;
    for (auto deadline = In(10000); Clock::now() < deadline;) {
      pollfd p{out, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      if (read(out, &c, 1) != 1 || c == '\n') break;
      line.push_back(c);
    }
    close(out);
    if (line.rfind("port ", 0) == 0) port_ = static_cast<uint16_t>(std::stoi(line.substr(5)));
  }
  ~StorePeer() {
    if (pid_ > 0) kill(pid_, SIGKILL);
    if (pid_ > 0) ReapChild(pid_, 5000);
  }
  uint16_t port() const { return port_; }
  int64_t Resident() const { return ResidentBytes(pid_); }
  double Cpu() const { return CpuSeconds(pid_); }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

std::string LengthPrefix(uint32_t n) {
  std::string p(4, '\0');
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((n >> (24 - 8 * i)) & 0xFF);
  return p;
}

wire::Frame Get(const std::string& key, uint64_t id) {
  wire::Frame f;
  f.verb = wire::Verb::kGet;
  f.id = id;
  f.keys = {key};
  return f;
}

using StoreLimitsTest = StoreFixture;

TEST_F(StoreLimitsTest, AnOversizedRequestIsRefusedBeforeItIsSent) {
  auto client = StoreClient::Connect("127.0.0.1", server_->port(), In(5000),
                                     {StoreSecret::Key(token_), 64 << 10});
  ASSERT_TRUE(client.ok()) << client.status().message();
  Status status = (*client)->Set("big", Bytes(100 << 10, 'x'), In(2000));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(status, "65536")) << status.message();
  EXPECT_TRUE(Mentions(status, "WEFT_STORE_MAX_MESSAGE")) << status.message();
  WEFT_ASSERT_OK((*client)->Set("small", "x", In(2000)));  // the connection is unharmed
}

class SmallMessageStoreTest : public StoreFixture {
 protected:
  StoreServer::Options ServerOptions() const override {
    StoreServer::Options options = StoreFixture::ServerOptions();
    options.limits.max_message = 64 << 10;
    options.limits.max_stored_bytes = 1 << 20;
    options.limits.max_event_value = 4 << 10;
    return options;
  }
};

TEST_F(SmallMessageStoreTest, AnAuthenticatedOversizedRequestIsAnsweredAndSkipped) {
  auto client = NewClient();  // its own limit is the default 64 MiB: more than the store's
  ASSERT_NE(client, nullptr);
  Status status = client->Set("big", Bytes(200 << 10, 'x'), In(5000));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(status, "message limit of 65536")) << status.message();
  WEFT_ASSERT_OK(client->Set("small", "x", In(2000)));  // the stream stayed in step
  EXPECT_EQ(*client->Get("small", In(2000)), "x");
}

TEST_F(SmallMessageStoreTest, StoredBytesAreCapped) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  const Bytes chunk(40 << 10, 'v');
  int stored = 0;
  Status status;
  for (; stored < 100; ++stored) {  // 100 would be 4 MiB: far past the limit
    status = client->Set("k" + std::to_string(stored), chunk, In(2000));
    if (!status.ok()) break;
  }
  EXPECT_EQ(stored, 25);  // 25 * (40 KiB + 2 or 3 bytes of key) fit in 1 MiB, 26 do not
  EXPECT_EQ(status.code(), Code::kOutOfMemory);
  EXPECT_TRUE(Mentions(status, "WEFT_STORE_MAX_BYTES")) << status.message();
  WEFT_ASSERT_OK(client->Set("k0", chunk, In(2000)));  // replacing does not grow it
  WEFT_ASSERT_OK(client->Delete("k1", In(2000)));
  WEFT_ASSERT_OK(client->Set("k25", chunk, In(2000)));  // room again
}

TEST_F(SmallMessageStoreTest, EventsCarrySmallValuesOnly) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  Status status = client->Publish("abort/comm", Bytes(5 << 10, 'e'), In(2000));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Mentions(status, "at most 4096")) << status.message();
  WEFT_ASSERT_OK(client->Publish("abort/comm", Bytes(4 << 10, 'e'), In(2000)));
}

TEST_F(StoreLimitsTest, AHugeLengthPrefixBeforeTheHandshakeIsClosed) {
  auto stranger = RawPeer::Connect(server_->port());
  ASSERT_NE(stranger, nullptr);
  ASSERT_TRUE(stranger->SendBytes(LengthPrefix(256u << 20)));
  EXPECT_TRUE(stranger->ClosedWithin(1000));
}

// The store grows a body with the bytes that arrive, not with the length announced.
TEST_F(StoreLimitsTest, LyingLengthPrefixesAllocateNothing) {
  StorePeer store(token_, 64 * kMiB);
  ASSERT_GT(store.port(), 0);
  std::vector<std::unique_ptr<RawPeer>> liars;
  for (int i = 0; i < 4; ++i) {
    liars.push_back(RawPeer::Connect(store.port()));
    ASSERT_TRUE(liars.back()->Authenticate(token_));
  }
  const int64_t before = store.Resident();
  for (auto& liar : liars) {
    ASSERT_TRUE(liar->SendBytes(LengthPrefix(60 << 20) + std::string(1000, 'x')));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int64_t grown = store.Resident() - before;
  EXPECT_LT(grown, 16 * kMiB) << "4 announced bodies of 60 MiB grew the store by " << grown / kMiB
                              << " MiB";
  std::printf("4 announced bodies of 60 MiB grew the store by %.1f MiB\n",
              static_cast<double>(grown) / kMiB);
}

// Twelve GETs of a 16 MiB value, never read: the store holds the value once, not twelve
// times, and stops reading that connection's requests (backpressure).
TEST_F(StoreLimitsTest, UnreadRepliesDoNotGrowTheStore) {
  StorePeer store(token_, 64 * kMiB);
  ASSERT_GT(store.port(), 0);
  auto writer = ConnectTo(store.port());
  ASSERT_NE(writer, nullptr);
  WEFT_ASSERT_OK(writer->Set("big", Bytes(16 * kMiB, 'b'), In(10000)));
  auto reader = RawPeer::Connect(store.port(), 64 << 10);
  ASSERT_TRUE(reader->Authenticate(token_));
  const int64_t before = store.Resident();
  for (uint64_t id = 1; id <= 12; ++id) ASSERT_TRUE(reader->Send(Get("big", id)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int64_t grown = store.Resident() - before;
  EXPECT_LT(grown, 48 * kMiB) << "12 unread replies of 16 MiB grew the store by " << grown / kMiB
                              << " MiB";
  std::printf("12 unread replies of 16 MiB grew the store by %.1f MiB\n",
              static_cast<double>(grown) / kMiB);
}

TEST_F(StoreLimitsTest, ANonReadingConnectionIsNotReadUntilItReads) {
  auto writer = NewClient();
  ASSERT_NE(writer, nullptr);
  WEFT_ASSERT_OK(writer->Set("big", Bytes(8 * kMiB, 'b'), In(10000)));
  auto reader = RawPeer::Connect(server_->port(), 64 << 10);
  ASSERT_TRUE(reader->Authenticate(token_));
  for (uint64_t id = 1; id <= 12; ++id) ASSERT_TRUE(reader->Send(Get("big", id)));
  wire::Frame set;
  set.verb = wire::Verb::kSet;
  set.id = 13;
  set.keys = {"after"};
  set.values = {"1"};
  ASSERT_TRUE(reader->Send(set));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(*writer->Check({"after"}, In(2000))) << "the store read past 96 MiB of backlog";
  size_t replies = 0;
  while (replies < 13 && reader->Recv(5000)) ++replies;
  EXPECT_EQ(replies, 13u);
  EXPECT_TRUE(*writer->Check({"after"}, In(2000)));
}

TEST_F(StoreLimitsTest, ARankIsNeverClosedForItsOwnLargeReplies) {
  auto writer = NewClient();
  auto rank = NewClient();
  ASSERT_NE(rank, nullptr);
  const Bytes value(8 * kMiB, 'r');
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 6; ++i) {  // parked first, then all answered at once
    threads.emplace_back([&] { ok += rank->Get("later", In(20000)).ok(); });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  WEFT_ASSERT_OK(writer->Set("later", value, In(10000)));
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 6);
  WEFT_ASSERT_OK(rank->Set("still", "connected", In(2000)));
}

// More strangers than the store's process has descriptors for (1030 connections under
// ulimit -n 1024 kept a job from starting): strangers never hold more than their cap of
// descriptors, the store does not spin, and the job's rank gets in.
TEST_F(StoreLimitsTest, StrangersCannotExhaustTheStoresDescriptors) {
  StorePeer store(token_, 64 * kMiB, /*fd_limit=*/128);
  ASSERT_GT(store.port(), 0);
  const double cpu_before = store.Cpu();
  std::vector<std::unique_ptr<RawPeer>> strangers;
  for (int i = 0; i < 200; ++i) {
    strangers.push_back(RawPeer::Connect(store.port()));
    ASSERT_NE(strangers.back(), nullptr);
  }
  auto start = Clock::now();
  auto rank = ConnectTo(store.port());
  ASSERT_NE(rank, nullptr);
  WEFT_ASSERT_OK(rank->Set("k", "v", In(2000)));
  const int64_t admitted_ms = MsSince(start);
  EXPECT_LT(admitted_ms, 3000);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // strangers still connected
  const double cpu = store.Cpu() - cpu_before;
  EXPECT_LT(cpu, 0.8) << "the store spun for " << cpu << " s of CPU";
  std::printf(
      "200 strangers on a 128-descriptor store: the rank got in after %lld ms; "
      "the store used %.2f s of CPU\n",
      static_cast<long long>(admitted_ms), cpu);
}

class EventBacklogTest : public StoreFixture {
 protected:
  StoreServer::Options ServerOptions() const override {
    StoreServer::Options options = StoreFixture::ServerOptions();
    options.limits.reply_backlog = 64 << 10;
    options.limits.max_message = 64 << 10;
    options.limits.event_backlog = 64 << 10;
    return options;
  }
};

TEST_F(EventBacklogTest, ARegisteredPeerThatNeverReadsIsClosedAsFailed) {
  EventLog log;
  auto rank0 = NewClient();
  ASSERT_NE(rank0, nullptr);
  WEFT_ASSERT_OK(rank0->Register(0, log.Handler(), In(2000)));
  auto deaf = RawPeer::Connect(server_->port(), 16 << 10);
  ASSERT_TRUE(deaf->Authenticate(token_));
  wire::Frame reg;
  reg.verb = wire::Verb::kRegister;
  reg.id = 1;
  reg.values = {"3"};
  ASSERT_TRUE(deaf->Send(reg));
  ASSERT_TRUE(deaf->Recv(2000).has_value());
  std::optional<Bytes> failed;
  for (int i = 0; i < 2000 && !failed; ++i) {
    WEFT_ASSERT_OK(rank0->Publish("news", Bytes(60 << 10, 'n'), In(2000)));
    failed = log.WaitFor(FailedKey(3), 0);
  }
  if (!failed) failed = log.WaitFor(FailedKey(3), 1000);
  ASSERT_TRUE(failed.has_value()) << "the deaf peer's backlog grew without bound";
  EXPECT_NE(failed->find("not reading"), std::string::npos) << *failed;
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
