// Collectives of the Gloo plugin on 2, 3 and 4 forked ranks, checked against closed-form
// values of (rank, index). The plugin is loaded with dlopen as the host would load it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tests/backends/gloo/rank_runner.hpp"

namespace weft::test {
namespace {

constexpr DLDataType kF16{kDLFloat, 16, 1};
constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDataType kC128{kDLComplex, 128, 1};

struct Complex {
  double re, im;
};

void AllreduceF32(Rank& r, uint64_t count, bool in_place) {
  const int n = r.size;
  std::vector<float> send(count), recv(count, -1.0f);
  for (uint64_t i = 0; i < count; ++i) send[i] = 0.5f * float(r.rank + 1) + float(i % 13);
  float* out = in_place ? send.data() : recv.data();
  const auto op = r.Op(r.world);
  RCHECK_OK(
      r.plugin->allreduce(r.world, send.data(), out, count, kF32, WEFT_REDUCE_SUM, &op, nullptr));
  for (uint64_t i = 0; i < count; ++i) {
    RCHECK(out[i] == 0.25f * float(n * (n + 1)) + float(n) * float(i % 13));
  }
  if (!in_place) RCHECK(send[count - 1] == 0.5f * float(r.rank + 1) + float((count - 1) % 13));
}

void AllreduceMaxF32(Rank& r) {
  const uint64_t count = 1001;
  std::vector<float> buf(count);
  auto value = [](int rank, uint64_t i) { return float((i * 7 + uint64_t(rank) * 13) % 31); };
  for (uint64_t i = 0; i < count; ++i) buf[i] = value(r.rank, i);
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allreduce(r.world, buf.data(), buf.data(), count, kF32, WEFT_REDUCE_MAX, &op,
                                nullptr));
  for (uint64_t i = 0; i < count; ++i) {
    float want = value(0, i);
    for (int q = 1; q < r.size; ++q) want = std::max(want, value(q, i));
    RCHECK(buf[i] == want);
  }
}

void AllreduceI32(Rank& r) {
  const uint64_t count = 100003;  // several Gloo segments, not a multiple of anything
  const int n = r.size;
  std::vector<int32_t> send(count), recv(count);
  for (uint64_t i = 0; i < count; ++i) send[i] = r.rank * 1000 + int32_t(i);
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allreduce(r.world, send.data(), recv.data(), count, kI32, WEFT_REDUCE_SUM,
                                &op, nullptr));
  for (uint64_t i = 0; i < count; ++i) RCHECK(recv[i] == 1000 * n * (n - 1) / 2 + n * int32_t(i));
}

void AllreduceF16AndC128(Rank& r) {
  const int n = r.size;
  std::vector<uint16_t> half(257);
  for (size_t i = 0; i < half.size(); ++i) half[i] = FloatToHalf(float(r.rank + 1 + int(i % 5)));
  auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allreduce(r.world, half.data(), half.data(), half.size(), kF16,
                                WEFT_REDUCE_SUM, &op, nullptr));
  for (size_t i = 0; i < half.size(); ++i) {
    const int want = n * (n + 1) / 2 + n * int(i % 5);  // n (n + 1) is even
    RCHECK(HalfToFloat(half[i]) == float(want));
  }
  std::vector<Complex> z(33);
  for (size_t i = 0; i < z.size(); ++i)
    z[i] = {double(r.rank) + double(i), double(r.rank) - double(i)};
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->allreduce(r.world, z.data(), z.data(), z.size(), kC128, WEFT_REDUCE_SUM, &op,
                                nullptr));
  const double ranks = n * (n - 1) / 2.0;
  for (size_t i = 0; i < z.size(); ++i) {
    RCHECK(z[i].re == ranks + n * double(i) && z[i].im == ranks - n * double(i));
  }
}

void Allgather(Rank& r, bool in_place) {
  const uint64_t count = 5;
  std::vector<int32_t> send(count), recv(count * r.size, -1);
  for (uint64_t i = 0; i < count; ++i) send[i] = r.rank * 100 + int32_t(i);
  int32_t* mine = recv.data() + r.rank * count;
  if (in_place) std::memcpy(mine, send.data(), count * 4);
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allgather(r.world, in_place ? mine : send.data(), recv.data(), count, kI32,
                                &op, nullptr));
  for (int q = 0; q < r.size; ++q) {
    for (uint64_t i = 0; i < count; ++i) RCHECK(recv[q * count + i] == q * 100 + int32_t(i));
  }
}

// Uneven counts with an empty block; `gap` elements between blocks (0: packed).
void Allgatherv(Rank& r, uint64_t gap, bool in_place) {
  auto count_of = [](int q) -> uint64_t { return q % 3 == 1 ? 0 : uint64_t(q) + 2; };
  std::vector<uint64_t> counts(r.size), displs(r.size);
  uint64_t end = 0;
  for (int q = 0; q < r.size; ++q) {
    counts[q] = count_of(q);
    displs[q] = end;
    end += counts[q] + gap;
  }
  std::vector<int32_t> send(counts[r.rank]), recv(end, -7);
  for (uint64_t i = 0; i < send.size(); ++i) send[i] = r.rank * 100 + int32_t(i);
  int32_t* mine = recv.data() + displs[r.rank];
  if (in_place && !send.empty()) std::memcpy(mine, send.data(), send.size() * 4);
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allgatherv(r.world, in_place ? mine : send.data(), send.size(), recv.data(),
                                 counts.data(), gap ? displs.data() : nullptr, kI32, &op, nullptr));
  for (int q = 0; q < r.size; ++q) {
    for (uint64_t i = 0; i < counts[q]; ++i) RCHECK(recv[displs[q] + i] == q * 100 + int32_t(i));
    for (uint64_t i = 0; i < gap; ++i) RCHECK(recv[displs[q] + counts[q] + i] == -7);
  }
}

void Alltoall(Rank& r, bool in_place) {
  const uint64_t count = 3;
  std::vector<int32_t> send(count * r.size), recv(count * r.size, -1);
  for (int s = 0; s < r.size; ++s) {
    for (uint64_t k = 0; k < count; ++k) send[s * count + k] = r.rank * 10000 + s * 100 + int(k);
  }
  int32_t* out = in_place ? send.data() : recv.data();
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->alltoall(r.world, send.data(), out, count, kI32, &op, nullptr));
  for (int q = 0; q < r.size; ++q) {
    for (uint64_t k = 0; k < count; ++k) {
      RCHECK(out[q * count + k] == q * 10000 + r.rank * 100 + int(k));
    }
  }
}

// Member `from` sends (from + 2 to) % 3 elements to member `to`: uneven, with empty blocks.
void Alltoallv(Rank& r, uint64_t gap) {
  auto cnt = [](int from, int to) -> uint64_t { return uint64_t(from + 2 * to) % 3; };
  const int n = r.size;
  std::vector<uint64_t> sc(n), sd(n), rc(n), rd(n);
  uint64_t send_end = 0, recv_end = 0;
  for (int q = 0; q < n; ++q) {
    sc[q] = cnt(r.rank, q);
    rc[q] = cnt(q, r.rank);
    sd[q] = send_end;
    rd[q] = recv_end;
    send_end += sc[q] + gap;
    recv_end += rc[q] + gap;
  }
  std::vector<int32_t> send(send_end, -3), recv(recv_end, -7);
  for (int s = 0; s < n; ++s) {
    for (uint64_t k = 0; k < sc[s]; ++k) send[sd[s] + k] = r.rank * 10000 + s * 100 + int(k);
  }
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->alltoallv(r.world, send.data(), sc.data(), sd.data(), recv.data(), rc.data(),
                                rd.data(), kI32, &op, nullptr));
  for (int q = 0; q < n; ++q) {
    for (uint64_t k = 0; k < rc[q]; ++k)
      RCHECK(recv[rd[q] + k] == q * 10000 + r.rank * 100 + int(k));
    for (uint64_t k = 0; k < gap; ++k) RCHECK(recv[rd[q] + rc[q] + k] == -7);
  }
}

void BroadcastFromEachRoot(Rank& r) {
  for (int root = 0; root < r.size; ++root) {
    std::vector<int32_t> buf(17, -1);
    if (r.rank == root) {
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = root * 1000 + int(i);
    }
    const auto op = r.Op(r.world);
    RCHECK_OK(r.plugin->broadcast(r.world, buf.data(), buf.size(), kI32, root, &op, nullptr));
    for (size_t i = 0; i < buf.size(); ++i) RCHECK(buf[i] == root * 1000 + int(i));
  }
}

// Every rank publishes a key before the barrier; after it, every key must be there.
void BarrierSynchronizes(Rank& r) {
  for (int round = 0; round < 3; ++round) {
    r.Signal("before/" + std::to_string(round) + "/" + std::to_string(r.rank));
    const auto op = r.Op(r.world);
    RCHECK_OK(r.plugin->barrier(r.world, &op, nullptr));
    std::string ignored;
    for (int q = 0; q < r.size; ++q) {
      const std::string key = "before/" + std::to_string(round) + "/" + std::to_string(q);
      RCHECK_OK(r.store->Get(key, &ignored, 0));
    }
  }
}

class GlooCollectives : public ::testing::TestWithParam<int> {};

TEST_P(GlooCollectives, AllreduceSumMaxAcrossDtypes) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    AllreduceF32(r, 1000, false);
    AllreduceF32(r, 7, true);
    AllreduceF32(r, 1, false);
    AllreduceF32(r, 600000, true);  // > 1 MiB: Gloo's multi-segment ring
    AllreduceMaxF32(r);
    AllreduceI32(r);
    AllreduceF16AndC128(r);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooCollectives, AllgatherAndAllgathervWithUnevenCounts) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    Allgather(r, false);
    Allgather(r, true);
    Allgatherv(r, 0, false);
    Allgatherv(r, 0, true);
    Allgatherv(r, 3, false);
    Allgatherv(r, 2, true);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooCollectives, AlltoallAndAlltoallv) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    Alltoall(r, false);
    Alltoall(r, true);
    Alltoallv(r, 0);
    Alltoallv(r, 2);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooCollectives, BroadcastFromEveryRootAndBarrier) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    BroadcastFromEachRoot(r);
    BarrierSynchronizes(r);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooCollectives, ::testing::Values(2, 3, 4));

}  // namespace
}  // namespace weft::test
