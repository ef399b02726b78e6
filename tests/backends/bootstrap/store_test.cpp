// The data verbs of the bootstrap store: set/get, blocking get and wait, check, add,
// compare-set, delete and prefix views, each against a real server on loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "backends/bootstrap/store.hpp"
#include "tests/backends/bootstrap/store_test_util.hpp"

namespace weft::backends::bootstrap::testing {
namespace {

using StoreTest = StoreFixture;

TEST_F(StoreTest, SetGetRoundTrip) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  WEFT_ASSERT_OK(client->Set("hello", "world", In(2000)));
  auto value = client->Get("hello", In(2000));
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, "world");
  WEFT_ASSERT_OK(client->Set("hello", "", In(2000)));  // overwrite with an empty value
  EXPECT_EQ(*client->Get("hello", In(2000)), "");
}

TEST_F(StoreTest, BinaryKeysAndValuesSurvive) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  Bytes every_byte;
  for (int i = 0; i < 256; ++i) every_byte.push_back(static_cast<char>(i));
  every_byte += std::string("\0\0tail\0", 7);
  const std::string key("bin\0key", 7);
  WEFT_ASSERT_OK(client->Set(key, every_byte, In(2000)));
  auto value = client->Get(key, In(2000));
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, every_byte);
  EXPECT_FALSE(*client->Check({"bin"}, In(2000)));  // the NUL is part of the key
}

TEST_F(StoreTest, LargeValuesRoundTrip) {
  auto writer = NewClient();
  auto reader = NewClient();
  ASSERT_NE(reader, nullptr);
  Bytes big(8 << 20, '\0');
  std::mt19937_64 rng(42);
  for (auto& byte : big) byte = static_cast<char>(rng());
  WEFT_ASSERT_OK(writer->Set("big", big, In(10000)));
  auto value = reader->Get("big", In(10000));
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_TRUE(*value == big);
}

TEST_F(StoreTest, GetBlocksUntilAnotherClientSets) {
  auto waiter = NewClient();
  auto setter = NewClient();
  ASSERT_NE(setter, nullptr);
  auto start = Clock::now();
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_TRUE(setter->Set("late", "here", In(2000)).ok());
  });
  auto value = waiter->Get("late", In(5000));
  late.join();
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, "here");
  EXPECT_GE(MsSince(start), 140);
}

TEST_F(StoreTest, WaitReturnsOnlyWhenEveryKeyExists) {
  auto waiter = NewClient();
  auto setter = NewClient();
  ASSERT_NE(setter, nullptr);
  std::atomic<bool> done{false};
  Status result;
  std::thread t([&] {
    result = waiter->Wait({"w/a", "w/b", "w/c"}, In(5000));
    done = true;
  });
  WEFT_ASSERT_OK(setter->Set("w/a", "1", In(2000)));
  WEFT_ASSERT_OK(setter->Delete("w/a", In(2000)));  // a waiter must notice it went again
  WEFT_ASSERT_OK(setter->Set("w/b", "1", In(2000)));
  WEFT_ASSERT_OK(setter->Set("w/c", "1", In(2000)));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_FALSE(done);
  WEFT_ASSERT_OK(setter->Set("w/a", "1", In(2000)));
  t.join();
  EXPECT_TRUE(result.ok()) << result.message();
  WEFT_ASSERT_OK(waiter->Wait({"w/a", "w/b"}, In(2000)));  // already there: returns at once
}

TEST_F(StoreTest, CheckDoesNotBlock) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto start = Clock::now();
  auto missing = client->Check({"c/x", "c/y"}, In(2000));
  ASSERT_TRUE(missing.ok()) << missing.status().message();
  EXPECT_FALSE(*missing);
  EXPECT_LT(MsSince(start), 500);
  WEFT_ASSERT_OK(client->Set("c/x", "1", In(2000)));
  EXPECT_FALSE(*client->Check({"c/x", "c/y"}, In(2000)));
  WEFT_ASSERT_OK(client->Set("c/y", "1", In(2000)));
  EXPECT_TRUE(*client->Check({"c/x", "c/y"}, In(2000)));
}

TEST_F(StoreTest, AddCountsFromZero) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(*client->Add("n", 5, In(2000)), 5);
  EXPECT_EQ(*client->Add("n", -7, In(2000)), -2);
  EXPECT_EQ(*client->Get("n", In(2000)), "-2");  // stored as decimal text
  WEFT_ASSERT_OK(client->Set("text", "abc", In(2000)));
  auto bad = client->Add("text", 1, In(2000));
  EXPECT_EQ(bad.status().code(), Code::kInvalidUsage);
  EXPECT_NE(bad.status().message().find("'text'"), std::string::npos) << bad.status().message();
}

TEST_F(StoreTest, CompareSetSemantics) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  // Expected "missing" on a missing key: stores.
  EXPECT_EQ(*client->CompareSet("cas", std::nullopt, "v1", In(2000)), "v1");
  // Expected "missing" on a present key: leaves it, returns the current value.
  EXPECT_EQ(*client->CompareSet("cas", std::nullopt, "v2", In(2000)), "v1");
  // Matching expected value: swaps.
  EXPECT_EQ(*client->CompareSet("cas", Bytes("v1"), "v3", In(2000)), "v3");
  // Mismatching expected value: leaves it.
  EXPECT_EQ(*client->CompareSet("cas", Bytes("v1"), "v4", In(2000)), "v3");
  EXPECT_EQ(*client->Get("cas", In(2000)), "v3");
  // An expected value never matches a missing key, not even "".
  EXPECT_EQ(*client->CompareSet("absent", Bytes(""), "x", In(2000)), "");
  EXPECT_FALSE(*client->Check({"absent"}, In(2000)));
}

TEST_F(StoreTest, CompareSetWakesWaiters) {
  auto waiter = NewClient();
  auto setter = NewClient();
  ASSERT_NE(setter, nullptr);
  std::thread t(
      [&] { EXPECT_EQ(*setter->CompareSet("leader", std::nullopt, "r3", In(2000)), "r3"); });
  auto value = waiter->Get("leader", In(5000));
  t.join();
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, "r3");
}

TEST_F(StoreTest, DeleteRemovesTheKey) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  WEFT_ASSERT_OK(client->Set("d", "1", In(2000)));
  WEFT_ASSERT_OK(client->Delete("d", In(2000)));
  EXPECT_FALSE(*client->Check({"d"}, In(2000)));
  EXPECT_EQ(client->Get("d", In(100)).status().code(), Code::kTimeout);
  WEFT_ASSERT_OK(client->Delete("never-existed", In(2000)));
  EXPECT_EQ(*client->Add("d", 1, In(2000)), 1);  // a deleted counter restarts at 0
}

TEST_F(StoreTest, PrefixViewsAreIsolated) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  PrefixStore a(*client, "comm1");
  PrefixStore b(*client, "comm2");
  WEFT_ASSERT_OK(a.Set("k", "from-a", In(2000)));
  WEFT_ASSERT_OK(b.Set("k", "from-b", In(2000)));
  EXPECT_EQ(*a.Get("k", In(2000)), "from-a");
  EXPECT_EQ(*b.Get("k", In(2000)), "from-b");
  EXPECT_EQ(*client->Get("comm1/k", In(2000)), "from-a");
  WEFT_ASSERT_OK(a.Set("only-a", "1", In(2000)));
  EXPECT_FALSE(*b.Check({"only-a"}, In(2000)));
  EXPECT_TRUE(*a.Check({"only-a", "k"}, In(2000)));
  EXPECT_EQ(*a.Add("n", 2, In(2000)), 2);
  EXPECT_EQ(*b.Add("n", 5, In(2000)), 5);
  EXPECT_EQ(*a.CompareSet("c", std::nullopt, "x", In(2000)), "x");
  EXPECT_EQ(*b.CompareSet("c", std::nullopt, "y", In(2000)), "y");
  WEFT_ASSERT_OK(a.Delete("k", In(2000)));
  EXPECT_TRUE(*b.Check({"k"}, In(2000)));
  PrefixStore nested = a.Sub("sub");
  EXPECT_EQ(nested.Key("k"), "comm1/sub/k");
  WEFT_ASSERT_OK(nested.Set("k", "deep", In(2000)));
  EXPECT_EQ(*a.Get("sub/k", In(2000)), "deep");
  WEFT_ASSERT_OK(b.Wait({"k", "n"}, In(2000)));
}

TEST_F(StoreTest, OneClientMultiplexesConcurrentCalls) {
  auto client = NewClient();
  auto other = NewClient();
  ASSERT_NE(other, nullptr);
  std::thread blocked([&] { EXPECT_EQ(*client->Get("m/late", In(5000)), "v"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // The same client keeps working while one of its calls is parked on the server.
  auto start = Clock::now();
  WEFT_ASSERT_OK(client->Set("m/x", "1", In(2000)));
  EXPECT_EQ(*client->Get("m/x", In(2000)), "1");
  EXPECT_LT(MsSince(start), 1000);
  WEFT_ASSERT_OK(other->Set("m/late", "v", In(2000)));
  blocked.join();
}

}  // namespace
}  // namespace weft::backends::bootstrap::testing
