// Small operations finished from the check's exchange (api/src/collective_fused.cpp): which
// ones are carried, and their outputs from hand-made slots against values written here.
#include "api/src/collective_fused.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace weft::api::check {
namespace {

const DType kI32{kCodeInt, 32, 1}, kF64{kCodeFloat, 64, 1};

Call Op(Kind kind, uint64_t count, DType t = kI32, int32_t op = -1) {
  Call c;
  c.kind = kind;
  c.dtype = t;
  c.count = count;
  c.op = op;
  return c;
}

// Slots of `n` members, member m's payload its int32 values `f(m, i)` for i < k.
template <typename F>
std::vector<Slot> Slots(const Call& call, int32_t n, int32_t k, F&& f) {
  std::vector<Slot> out(n);
  for (int32_t m = 0; m < n; ++m) {
    out[m].record = MakeRecord(call, m, n, 0, 0);
    std::vector<int32_t> v(k);
    for (int32_t i = 0; i < k; ++i) v[i] = f(m, i);
    std::memcpy(out[m].payload, v.data(), v.size() * sizeof(int32_t));
  }
  return out;
}

TEST(CollectiveFused, WhatFitsTheRoom) {
  auto bytes = [](const Call& c, int32_t n) { return CarriedBytes(MakeRecord(c, 0, n, 0, 0), n); };
  EXPECT_EQ(bytes(Op(Kind::kAllreduce, 48, kI32, 0), 4), 192u);
  EXPECT_EQ(bytes(Op(Kind::kAllreduce, 49, kI32, 0), 4), kNotCarried);
  EXPECT_EQ(bytes(Op(Kind::kAllreduce, 8, kI32, 1), 4), kNotCarried);  // avg: composed in float64
  EXPECT_EQ(bytes(Op(Kind::kAlltoall, 12, kI32), 4), 192u);            // 4 blocks of 12
  EXPECT_EQ(bytes(Op(Kind::kAlltoall, 13, kI32), 4), kNotCarried);
  EXPECT_EQ(bytes(Op(Kind::kReduceScatter, 6, kF64, 0), 4), 192u);
  EXPECT_EQ(bytes(Op(Kind::kBarrier, 0), 8), 0u);
  EXPECT_EQ(bytes(Op(Kind::kAllgatherv, 0), 2), kNotCarried);
  EXPECT_EQ(bytes(Op(Kind::kAllreduce, uint64_t{1} << 62, kI32, 0), 2), kNotCarried);
}

TEST(CollectiveFused, AllreduceReducesEveryMember) {
  Call c = Op(Kind::kAllreduce, 5, kI32, 2);  // max
  const auto slots = Slots(c, 3, 5, [](int32_t m, int32_t i) { return (m * 7 + i * 3) % 10; });
  std::vector<int32_t> out(5, -1);
  c.recv = out.data();
  ASSERT_TRUE(CompleteCarried(c, 1, slots).ok());
  for (int32_t i = 0; i < 5; ++i) {
    int32_t want = 0;
    for (int32_t m = 0; m < 3; ++m) want = std::max(want, (m * 7 + i * 3) % 10);
    EXPECT_EQ(out[i], want) << i;
  }
}

TEST(CollectiveFused, ReduceScatterSumsThisMembersBlock) {
  Call c = Op(Kind::kReduceScatter, 2, kI32, 0);
  const auto slots = Slots(c, 3, 6, [](int32_t m, int32_t i) { return 100 * m + i; });
  std::vector<int32_t> out(2, -1);
  c.recv = out.data();
  ASSERT_TRUE(CompleteCarried(c, 2, slots).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{300 + 3 * 4, 300 + 3 * 5}));
}

TEST(CollectiveFused, MovementTakesTheRightBlocks) {
  const int32_t n = 3;
  auto val = [](int32_t m, int32_t i) { return 10 * m + i; };
  {
    Call c = Op(Kind::kAllgather, 2);
    std::vector<int32_t> out(6, -1);
    c.recv = out.data();
    ASSERT_TRUE(CompleteCarried(c, 0, Slots(c, n, 2, val)).ok());
    EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 10, 11, 20, 21}));
  }
  {
    Call c = Op(Kind::kAlltoall, 1);  // member m sends element j to member j
    std::vector<int32_t> out(3, -1);
    c.recv = out.data();
    ASSERT_TRUE(CompleteCarried(c, 1, Slots(c, n, 3, val)).ok());
    EXPECT_EQ(out, (std::vector<int32_t>{1, 11, 21}));
  }
  {
    Call c = Op(Kind::kBroadcast, 2);
    c.root = 2;
    std::vector<int32_t> out(2, -1);
    c.recv = out.data();
    ASSERT_TRUE(CompleteCarried(c, 0, Slots(c, n, 2, val)).ok());
    EXPECT_EQ(out, (std::vector<int32_t>{20, 21}));
  }
}

TEST(CollectiveFused, OnlyTheRootFillsABroadcastsPayload) {
  Call c = Op(Kind::kBroadcast, 1);
  c.root = 1;
  int32_t v = 77;
  c.send = &v;
  Slot s{};
  s.record = MakeRecord(c, 0, 2, 0, 0);
  FillPayload(c, 2, &s);
  EXPECT_EQ(s.payload[0], 0);
  s.record = MakeRecord(c, 1, 2, 0, 0);
  FillPayload(c, 2, &s);
  int32_t got = 0;
  std::memcpy(&got, s.payload, sizeof(got));
  EXPECT_EQ(got, 77);
}

}  // namespace
}  // namespace weft::api::check
