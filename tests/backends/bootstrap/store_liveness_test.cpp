// The liveness channel (SPEC §10): a registered rank that vanishes is announced to every
// other registered rank within about a second; a rank that says goodbye is not.
#include <gtest/gtest.h>

#include <csignal>
#include <future>
#include <thread>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

constexpr int kEventBudgetMs = 1000;

class StoreLivenessTest : public StoreFixture {
 protected:
  // A client registered as `rank` whose events land in logs_[rank].
  std::unique_ptr<StoreClient> Rank(int32_t rank) {
    auto client = NewClient();
    if (client == nullptr) return nullptr;
    Status status = client->Register(rank, logs_[rank].Handler(), In(2000));
    EXPECT_TRUE(status.ok()) << status.message();
    return client;
  }

  EventLog logs_[8];
};

TEST_F(StoreLivenessTest, DroppedConnectionIsAnnouncedToEveryone) {
  auto r0 = Rank(0);
  auto r1 = Rank(1);
  auto r2 = Rank(2);
  ASSERT_NE(r2, nullptr);
  r2->Close();  // no Leave(): looks like a crash to the store
  auto start = Clock::now();
  auto seen0 = logs_[0].WaitFor(FailedKey(2), kEventBudgetMs);
  auto seen1 = logs_[1].WaitFor(FailedKey(2), kEventBudgetMs);
  EXPECT_LT(MsSince(start), kEventBudgetMs);
  ASSERT_TRUE(seen0.has_value());
  ASSERT_TRUE(seen1.has_value());
  EXPECT_NE(seen0->find("rank 2"), std::string::npos) << *seen0;
  EXPECT_EQ(logs_[2].Count(FailedKey(2)), 0u);  // the dead rank hears nothing
  auto recorded = r0->Get(FailedKey(2), In(2000));
  ASSERT_TRUE(recorded.ok()) << recorded.status().message();
  EXPECT_EQ(*recorded, *seen0);
  EXPECT_EQ(server_->FailedRanks(), std::vector<int32_t>{2});
}

TEST_F(StoreLivenessTest, KilledProcessIsAnnouncedToEveryone) {
  auto r0 = Rank(0);
  auto r1 = Rank(1);
  ASSERT_NE(r1, nullptr);
  pid_t pid = SpawnPeer({"rank", std::to_string(server_->port()), "5"}, token_);
  ASSERT_GT(pid, 0);
  bool ready = r0->Get("peer/5/ready", In(10000)).ok();
  kill(pid, SIGKILL);
  auto start = Clock::now();
  if (!ready) {
    ReapChild(pid, 5000);
    FAIL() << "the peer process never registered";
  }
  EXPECT_TRUE(logs_[0].WaitFor(FailedKey(5), kEventBudgetMs).has_value());
  EXPECT_TRUE(logs_[1].WaitFor(FailedKey(5), kEventBudgetMs).has_value());
  EXPECT_LT(MsSince(start), kEventBudgetMs);
  EXPECT_TRUE(r1->Get(FailedKey(5), In(2000)).ok());
  int status = ReapChild(pid, 5000);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST_F(StoreLivenessTest, LeaveIsNotAFailure) {
  auto r0 = Rank(0);
  auto r1 = Rank(1);
  ASSERT_NE(r1, nullptr);
  WEFT_ASSERT_OK(r1->Leave(In(2000)));
  r1->Close();
  r1.reset();
  EXPECT_FALSE(logs_[0].WaitFor(FailedKey(1), 300).has_value());
  EXPECT_FALSE(*r0->Check({FailedKey(1)}, In(2000)));
  EXPECT_TRUE(server_->FailedRanks().empty());
}

TEST_F(StoreLivenessTest, PublishReachesEveryRegisteredClient) {
  auto r0 = Rank(0);
  auto r1 = Rank(1);
  auto r2 = Rank(2);
  auto bystander = NewClient();  // not registered: no events
  ASSERT_NE(bystander, nullptr);
  WEFT_ASSERT_OK(r1->Publish("abort/comm7", "rank 1 rejected its buffer", In(2000)));
  for (int rank = 0; rank < 3; ++rank) {
    auto value = logs_[rank].WaitFor("abort/comm7", kEventBudgetMs);
    ASSERT_TRUE(value.has_value()) << "rank " << rank;
    EXPECT_EQ(*value, "rank 1 rejected its buffer");
  }
  EXPECT_EQ(*bystander->Get("abort/comm7", In(2000)), "rank 1 rejected its buffer");
  PrefixStore comm(*r0, "comm9");
  WEFT_ASSERT_OK(comm.Publish("abort", "x", In(2000)));
  EXPECT_TRUE(logs_[2].WaitFor("comm9/abort", kEventBudgetMs).has_value());
}

TEST_F(StoreLivenessTest, EventHandlerMayCallTheStore) {
  std::promise<Result<Bytes>> fetched;  // outlives the client whose handler fills it
  auto r0 = NewClient();
  ASSERT_NE(r0, nullptr);
  StoreClient* self = r0.get();
  WEFT_ASSERT_OK(r0->Register(
      0,
      [&](const std::string& key, const Bytes&) {
        if (key == FailedKey(1)) fetched.set_value(self->Get(key, In(2000)));
      },
      In(2000)));
  auto r1 = Rank(1);
  ASSERT_NE(r1, nullptr);
  r1.reset();
  auto future = fetched.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(2)), std::future_status::ready);
  auto value = future.get();
  EXPECT_TRUE(value.ok()) << value.status().message();
}

TEST_F(StoreLivenessTest, DuplicateRankIsRejected) {
  auto r3 = Rank(3);
  auto impostor = NewClient();
  ASSERT_NE(impostor, nullptr);
  Status status = impostor->Register(3, nullptr, In(2000));
  EXPECT_EQ(status.code(), Code::kInvalidUsage);
  EXPECT_NE(status.message().find("rank 3"), std::string::npos) << status.message();
  EXPECT_EQ(impostor->Leave(In(2000)).code(), Code::kInvalidUsage);  // never registered
  EXPECT_EQ(impostor->Register(-1, nullptr, In(2000)).code(), Code::kInvalidArgument);
}

TEST_F(StoreLivenessTest, WaitAllLeftCountsLeftAndFailedRanks) {
  auto r0 = Rank(0);
  auto r1 = Rank(1);
  auto r2 = Rank(2);
  ASSERT_NE(r2, nullptr);
  bool all_gone = false;
  std::thread host([&] { all_gone = server_->WaitAllLeft(3, In(5000)); });
  WEFT_ASSERT_OK(r0->Leave(In(2000)));
  WEFT_ASSERT_OK(r1->Leave(In(2000)));
  r2.reset();  // failed, which also counts as gone
  host.join();
  EXPECT_TRUE(all_gone);
  EXPECT_EQ(server_->FailedRanks(), std::vector<int32_t>{2});
}

TEST_F(StoreLivenessTest, WaitAllLeftTimesOutWhileARankStays) {
  auto r0 = Rank(0);
  auto r1 = Rank(1);
  ASSERT_NE(r1, nullptr);
  WEFT_ASSERT_OK(r0->Leave(In(2000)));
  auto start = Clock::now();
  EXPECT_FALSE(server_->WaitAllLeft(2, In(200)));
  EXPECT_GE(MsSince(start), 190);
  // Too few ranks registered yet also keeps it waiting.
  WEFT_ASSERT_OK(r1->Leave(In(2000)));
  EXPECT_FALSE(server_->WaitAllLeft(3, In(100)));
  EXPECT_TRUE(server_->WaitAllLeft(2, In(100)));
}

TEST_F(StoreLivenessTest, RegisteredClientHearsThatTheStoreIsLost) {
  auto r0 = Rank(0);
  ASSERT_NE(r0, nullptr);
  server_->Stop();
  auto reason = logs_[0].WaitFor(kStoreLostKey, kEventBudgetMs);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("127.0.0.1"), std::string::npos) << *reason;
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
