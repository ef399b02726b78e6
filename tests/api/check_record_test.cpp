// The argument records of the cross-rank check (api/src/check_record.cpp): which member
// disagrees, the alltoallv sums, and the messages, against texts and matrices written here.
#include "api/src/check_record.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace weft::api::check {
namespace {

const DType kF32{kCodeFloat, 32, 1}, kI32{kCodeInt, 32, 1};

Call Allreduce(uint64_t count, DType t = kF32, int32_t op = 0) {
  Call c;
  c.kind = Kind::kAllreduce;
  c.dtype = t;
  c.op = op;
  c.count = count;
  return c;
}

std::vector<Record> Records(const std::vector<Call>& calls, uint64_t seq = 17) {
  std::vector<Record> out;
  const std::vector<int32_t> ranks = {0, 1, 2, 3};
  for (size_t i = 0; i < calls.size(); ++i)
    out.push_back(MakeRecord(calls[i], static_cast<int32_t>(i), static_cast<int32_t>(calls.size()),
                             seq, GroupHash(std::span(ranks).first(calls.size()))));
  return out;
}

TEST(CheckRecord, AgreementIgnoresTheWritersIndex) {
  EXPECT_EQ(FirstDisagreement(Records({Allreduce(8), Allreduce(8), Allreduce(8)})), -1);
}

TEST(CheckRecord, TheFirstDifferingMemberIsNamed) {
  EXPECT_EQ(FirstDisagreement(Records({Allreduce(8), Allreduce(8), Allreduce(9)})), 2);
  EXPECT_EQ(FirstDisagreement(Records({Allreduce(8), Allreduce(8, kI32), Allreduce(9)})), 1);
  EXPECT_EQ(FirstDisagreement(Records({Allreduce(8), Allreduce(8, kF32, 2)})), 1);
  auto records = Records({Allreduce(8), Allreduce(8)});
  records[1].seq = 18;
  EXPECT_EQ(FirstDisagreement(records), 1);
}

TEST(CheckRecord, TheMessageNamesBothSides) {
  const std::vector<int32_t> ranks = {0, 1};
  const auto r = Records({Allreduce(8), Allreduce(9)});
  EXPECT_EQ(MismatchText(ranks, r[0], r[1]),
            "allreduce #17 on group [0, 1]: rank 0 passed count 8 float32 sum, rank 1 passed "
            "count 9 float32 sum");
  Call bcast;
  bcast.kind = Kind::kBroadcast;
  bcast.dtype = kF32;
  bcast.count = 8;
  bcast.root = 1;
  const auto k = Records({Allreduce(8), bcast});
  EXPECT_EQ(MismatchText(ranks, k[0], k[1]),
            "collective calls on group [0, 1] disagree: rank 0 called allreduce #17 (count 8 "
            "float32 sum), rank 1 called broadcast #17 (count 8 float32 root 1)");
}

TEST(CheckRecord, WorldRanksOfASubgroupAndLongGroupsShortened) {
  const std::vector<int32_t> sub = {4, 6};
  const auto r = Records({Allreduce(8), Allreduce(8, kI32)});
  EXPECT_EQ(MismatchText(sub, r[0], r[1]),
            "allreduce #17 on group [4, 6]: rank 4 passed count 8 float32 sum, rank 6 passed "
            "count 8 int32 sum");
  std::vector<int32_t> big(12);
  for (int32_t i = 0; i < 12; ++i) big[i] = i;
  EXPECT_EQ(GroupText(big), "[0, 1, 2, 3, 4, 5, 6, 7, ... 12 ranks]");
}

// alltoallv: the records agree exactly when every send count meets its receive count.
TEST(CheckRecord, AlltoallvSumsMatchTheCountMatrix) {
  std::mt19937_64 rng(7);
  for (int32_t n : {2, 3, 5}) {
    std::vector<std::vector<uint64_t>> m(n, std::vector<uint64_t>(n));
    for (auto& row : m)
      for (auto& x : row) x = rng() % 100;
    auto records = [&](const std::vector<std::vector<uint64_t>>& sends) {
      std::vector<std::vector<uint64_t>> recv(n, std::vector<uint64_t>(n));
      for (int32_t s = 0; s < n; ++s)
        for (int32_t d = 0; d < n; ++d) recv[d][s] = m[s][d];  // from the true matrix
      std::vector<Record> out;
      for (int32_t i = 0; i < n; ++i) {
        Call c;
        c.kind = Kind::kAlltoallv;
        c.dtype = kF32;
        c.counts = sends[i];
        c.recv_counts = recv[i];
        out.push_back(MakeRecord(c, i, n, 3, 99));
      }
      return out;
    };
    EXPECT_EQ(FirstDisagreement(records(m)), -1) << n;
    auto wrong = m;
    wrong[n - 1][0] += 1;
    EXPECT_EQ(FirstDisagreement(records(wrong)), n) << n;
  }
}

TEST(CheckRecord, DescribeEveryKind) {
  Call c;
  c.dtype = kF32;
  c.count = 8;
  c.op = 2;
  const std::vector<std::pair<Kind, std::string>> want = {
      {Kind::kAllreduce, "count 8 float32 max"},
      {Kind::kAllgather, "count 8 float32"},
      {Kind::kAllgatherv, "float32"},
      {Kind::kReduceScatter, "recv count 8 float32 max"},
      {Kind::kReduceScatterv, "float32 max"},
      {Kind::kAlltoall, "count 8 per member float32"},
      {Kind::kBarrier, "no arguments"},
      {Kind::kSend, "count 8 float32"}};
  for (const auto& [kind, text] : want) {
    c.kind = kind;
    std::vector<uint64_t> counts(2, 8);
    c.counts = counts;
    c.recv_counts = counts;
    EXPECT_EQ(Describe(MakeRecord(c, 0, 2, 0, 0)), text) << KindName(kind);
  }
}

}  // namespace
}  // namespace weft::api::check
