// Reductions: every dtype × every op it supports, against a closed form of (rank, index).
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "values.hpp"
#include "world.hpp"

namespace conformance {
namespace {

struct Case {
  Type type;
  int32_t op;
};

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (const Type& t : AllTypes()) {
    out.push_back({t, WEFT_REDUCE_SUM});
    out.push_back({t, WEFT_REDUCE_PROD});
    if (!t.is_complex) {
      out.push_back({t, WEFT_REDUCE_MAX});
      out.push_back({t, WEFT_REDUCE_MIN});
    }
    if (t.is_float) out.push_back({t, WEFT_REDUCE_AVG});
  }
  return out;
}

// The contribution of `rank` at `i` for `op`: small integers so every result is exact.
std::complex<double> Input(const Case& c, int32_t rank, int64_t i) {
  if (c.type.is_bool) return ((rank + i) % 3 == 0) ? 1 : 0;
  switch (c.op) {
    case WEFT_REDUCE_PROD:
      return {1.0 + double((rank + i) % 2), c.type.is_complex ? double((rank + 2 * i) % 2) : 0};
    case WEFT_REDUCE_MAX:
    case WEFT_REDUCE_MIN:
      return double((rank * 3 + i) % 7 - (c.type.is_signed ? 3 : 0));
    default:
      return {double((rank + 2 * i) % 5), c.type.is_complex ? double((rank + i) % 3) : 0};
  }
}

std::complex<double> Expected(const Case& c, int32_t n, int64_t i) {
  std::complex<double> acc = Input(c, 0, i);
  for (int32_t r = 1; r < n; ++r) {
    const std::complex<double> x = Input(c, r, i);
    if (c.type.is_bool) {
      const bool a = acc.real() != 0, b = x.real() != 0;
      const bool any = c.op == WEFT_REDUCE_SUM || c.op == WEFT_REDUCE_MAX;
      acc = (any ? (a || b) : (a && b)) ? 1 : 0;
      continue;
    }
    switch (c.op) {
      case WEFT_REDUCE_PROD:
        acc *= x;
        break;
      case WEFT_REDUCE_MAX:
        acc = std::max(acc.real(), x.real());
        break;
      case WEFT_REDUCE_MIN:
        acc = std::min(acc.real(), x.real());
        break;
      default:
        acc += x;
    }
  }
  if (c.op == WEFT_REDUCE_AVG) acc /= double(n);
  return acc;
}

void Fill(const Case& c, int32_t rank, weft::test::Buffer<char>& buf, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    const auto v = Input(c, rank, i);
    Encode(c.type, buf.data() + i * c.type.bytes(), v.real(), v.imag());
  }
}

// Compares element i of `got` with the closed form for (i + base).
void CheckElements(const Case& c, const weft::test::Buffer<char>& got, int64_t count, int64_t base,
                   int32_t n) {
  int failures = 0;
  for (int64_t i = 0; i < count && failures < 5; ++i) {
    const auto e = Expected(c, n, base + i);
    const auto want = EncodeOne(c.type, e.real(), e.imag());
    if (std::memcmp(want.data(), got.data() + i * c.type.bytes(), c.type.bytes()) != 0) {
      ADD_FAILURE() << c.type.name << " op " << c.op << " element " << base + i << ": expected "
                    << e.real() << "+" << e.imag() << "i";
      ++failures;
    }
  }
}

TEST(Reduce, AllreduceEveryDtypeAndOp) {
  World& w = TheWorld();
  const int64_t count = 37;
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(std::string(c.type.name) + " op " + std::to_string(c.op));
    weft::test::Buffer<char> in(count * c.type.bytes()), out(in.size());
    Fill(c, w.rank, in, count);
    Tensor ti(in.data(), count, c.type.dl), to(out.data(), count, c.type.dl);
    WEFT_OK_OR_FAIL(
        weft_allreduce(w.ctx, nullptr, 0, ti.get(), to.get(), c.op, nullptr, nullptr, nullptr));
    CheckElements(c, out, count, 0, w.size);
    // In place: the same tensor as send and receive.
    WEFT_OK_OR_FAIL(
        weft_allreduce(w.ctx, nullptr, 0, ti.get(), ti.get(), c.op, nullptr, nullptr, nullptr));
    CheckElements(c, in, count, 0, w.size);
  }
}

TEST(Reduce, AllreduceLargeAndEmpty) {
  World& w = TheWorld();
  const Case c{AllTypes()[10], WEFT_REDUCE_SUM};  // float32
  for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{(1 << 20) + 3}}) {
    weft::test::Buffer<char> in(count * 4 + 1), out(in.size());
    Fill(c, w.rank, in, count);
    Tensor ti(in.data(), count, c.type.dl), to(out.data(), count, c.type.dl);
    WEFT_OK_OR_FAIL(
        weft_allreduce(w.ctx, nullptr, 0, ti.get(), to.get(), c.op, nullptr, nullptr, nullptr));
    CheckElements(c, out, count, 0, w.size);
  }
}

TEST(Reduce, ReduceScatterEveryDtype) {
  World& w = TheWorld();
  const int64_t per = 3;
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(std::string(c.type.name) + " op " + std::to_string(c.op));
    weft::test::Buffer<char> in(per * w.size * c.type.bytes()), out(per * c.type.bytes());
    Fill(c, w.rank, in, per * w.size);
    Tensor ti(in.data(), per * w.size, c.type.dl), to(out.data(), per, c.type.dl);
    WEFT_OK_OR_FAIL(weft_reduce_scatter(w.ctx, nullptr, 0, ti.get(), to.get(), c.op, nullptr,
                                        nullptr, nullptr));
    CheckElements(c, out, per, per * w.rank, w.size);
  }
}

TEST(Reduce, ReduceScattervUnevenWithZeros) {
  World& w = TheWorld();
  std::vector<int64_t> counts(w.size);
  int64_t total = 0, mine_at = 0;
  for (int32_t r = 0; r < w.size; ++r) {
    counts[r] = (r * 5 + 1) % 4;  // 1, 2, 3, 0, ...
    if (r < w.rank) mine_at += counts[r];
    total += counts[r];
  }
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(std::string(c.type.name) + " op " + std::to_string(c.op));
    weft::test::Buffer<char> in(total * c.type.bytes() + 1),
        out(counts[w.rank] * c.type.bytes() + 1);
    Fill(c, w.rank, in, total);
    Tensor ti(in.data(), total, c.type.dl), to(out.data(), counts[w.rank], c.type.dl);
    WEFT_OK_OR_FAIL(weft_reduce_scatterv(w.ctx, nullptr, 0, ti.get(), to.get(), counts.data(), c.op,
                                         nullptr, nullptr, nullptr));
    CheckElements(c, out, counts[w.rank], mine_at, w.size);
  }
}

// Every rank's `out` gathered and compared byte for byte with this rank's.
void ExpectEveryRanksBits(World& w, weft::test::Buffer<float>& out) {
  const auto count = static_cast<int64_t>(out.size());
  const DLDataType f32{kDLFloat, 32, 1};
  weft::test::Buffer<float> all(count * w.size);
  Tensor to(out.data(), count, f32), ta(all.data(), count * w.size, f32);
  WEFT_OK_OR_FAIL(weft_allgather(w.ctx, nullptr, 0, to.get(), ta.get(), nullptr, nullptr, nullptr));
  for (int32_t r = 0; r < w.size; ++r)
    ASSERT_EQ(std::memcmp(all.data() + r * count, out.data(), count * sizeof(float)), 0)
        << "rank " << r << " has other bits than rank " << w.rank;
}

// Sums that round: every member must still end with the same bits (a backend may reduce in
// any order, but one order for all; recursive doubling and ring both have to get this right).
// The reference is the gathered results of all ranks, compared byte for byte.
TEST(Reduce, AllreduceGivesEveryRankTheSameBits) {
  World& w = TheWorld();
  for (int64_t count : {int64_t{1}, int64_t{37}, int64_t{3000}, int64_t{40000}}) {
    SCOPED_TRACE("count " + std::to_string(count));
    weft::test::Buffer<float> in(count), out(count);
    uint32_t x = 2654435761u * static_cast<uint32_t>(w.rank + 1);
    for (float& v : in) {  // values of very different magnitudes, so the order matters
      x = x * 1664525u + 1013904223u;
      v = static_cast<float>(x >> 8) * (x & 1 ? 1e-6f : 3.7f);
    }
    const DLDataType f32{kDLFloat, 32, 1};
    Tensor ti(in.data(), count, f32), to(out.data(), count, f32);
    WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, ti.get(), to.get(), WEFT_REDUCE_SUM, nullptr,
                                   nullptr, nullptr));
    ExpectEveryRanksBits(w, out);
  }
}

// Signed zeros and NaNs with payloads that differ by rank, in place and not: max(+0, -0) and
// NaN + NaN depend on which operand comes first, so members that reduced in different orders
// would hold different bits (the 2-member exchange of the gloo plugin reduces member 0's data
// op member 1's on both).
TEST(Reduce, AllreduceSignedZerosAndNaNsGiveEveryRankTheSameBits) {
  World& w = TheWorld();
  const int64_t count = 4096;
  for (int32_t op : {WEFT_REDUCE_SUM, WEFT_REDUCE_MAX, WEFT_REDUCE_MIN}) {
    for (bool in_place : {false, true}) {
      SCOPED_TRACE("op " + std::to_string(op) + (in_place ? ", in place" : ""));
      weft::test::Buffer<float> in(count), out(count);
      for (int64_t i = 0; i < count; ++i) {
        const uint32_t nan = 0x7fc00000u | static_cast<uint32_t>(w.rank + 1 + i % 7);
        switch (i % 4) {
          case 0:
            in[i] = (w.rank + i) % 2 ? -0.0f : 0.0f;
            break;
          case 1:
            std::memcpy(&in[i], &nan, sizeof(nan));
            break;
          case 2:
            in[i] = w.rank == 0 ? -0.0f : 0.0f;
            break;
          default:
            in[i] = 1.5f * static_cast<float>(w.rank + 1);
        }
      }
      const DLDataType f32{kDLFloat, 32, 1};
      if (in_place) out = in;
      Tensor ti(in_place ? out.data() : in.data(), count, f32), to(out.data(), count, f32);
      WEFT_OK_OR_FAIL(
          weft_allreduce(w.ctx, nullptr, 0, ti.get(), to.get(), op, nullptr, nullptr, nullptr));
      ExpectEveryRanksBits(w, out);
      EXPECT_EQ(out[3], 1.5f * (op == WEFT_REDUCE_MIN   ? 1.0f
                                : op == WEFT_REDUCE_MAX ? static_cast<float>(w.size)
                                                        : static_cast<float>(w.size) *
                                                              static_cast<float>(w.size + 1) / 2));
    }
  }
}

// A float32 value whose sums depend on the order they are taken in (mixed magnitudes and
// signs): member r's element i.
float OrderSensitive(int32_t r, int64_t i) {
  // 23 bits of mantissa from a hash: nearly every sum of two of them rounds.
  const uint64_t h =
      (static_cast<uint64_t>(r) * 2654435761u + static_cast<uint64_t>(i) * 40503u + 12345u) *
      0x9e3779b97f4a7c15ull;
  const float mantissa = 1.0f + static_cast<float>(h >> 41) / 8388608.0f;
  const int exponent = static_cast<int>((h >> 20) % 8);
  return std::ldexp((h >> 30) % 3 ? mantissa : -mantissa, exponent);
}

// The sum of members 0..n-1 of element i, folded in `order`.
float Fold(const weft::test::Buffer<int32_t>& order, int64_t i) {
  float acc = OrderSensitive(order[0], i);
  for (size_t k = 1; k < order.size(); ++k) acc += OrderSensitive(order[k], i);
  return acc;
}

// WEFT_DETERMINISTIC_REDUCTIONS=1 (and the host's composed reductions, which it selects): an
// all-reduce's and a reduce-scatter's bits are the member-order fold ((x0 + x1) + x2) ... that
// every rank computes here. Otherwise each backend keeps its own order: the sums are then
// checked against the fold within the rounding any order may give.
TEST(Reduce, DeterministicReductionsFoldInMemberOrder) {
  World& w = TheWorld();
  const char* ordered = std::getenv("WEFT_DETERMINISTIC_REDUCTIONS");
  const char* disabled = std::getenv("WEFT_BACKEND_DISABLE_OPS");
  const bool exact =
      (ordered && std::string(ordered) == "1") || (disabled && std::string(disabled) == "all");
  const int64_t per = 257, count = per * w.size;
  weft::test::Buffer<int32_t> forward(w.size), backward(w.size);
  for (int32_t r = 0; r < w.size; ++r) forward[r] = backward[w.size - 1 - r] = r;
  weft::test::Buffer<float> in(count), out(count), chunk(per);
  int64_t order_matters = 0;
  for (int64_t i = 0; i < count; ++i) {
    in[i] = OrderSensitive(w.rank, i);
    order_matters += Fold(forward, i) != Fold(backward, i);
  }
  if (w.size > 2) {
    EXPECT_GT(order_matters, 0) << "the values do not tell orders apart";
  }
  const DLDataType f32{kDLFloat, 32, 1};
  Tensor ti(in.data(), count, f32), to(out.data(), count, f32), tc(chunk.data(), per, f32);
  WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, ti.get(), to.get(), WEFT_REDUCE_SUM, nullptr,
                                 nullptr, nullptr));
  WEFT_OK_OR_FAIL(weft_reduce_scatter(w.ctx, nullptr, 0, ti.get(), tc.get(), WEFT_REDUCE_SUM,
                                      nullptr, nullptr, nullptr));
  for (int64_t i = 0; i < count; ++i) {
    const float want = Fold(forward, i);
    float magnitude = 0;
    for (int32_t r = 0; r < w.size; ++r) magnitude += std::fabs(OrderSensitive(r, i));
    const float slack = exact ? 0.0f : magnitude * 1e-6f;
    ASSERT_LE(std::fabs(out[i] - want), slack) << "all-reduce, element " << i;
    if (i / per == w.rank) {
      ASSERT_LE(std::fabs(chunk[i % per] - want), slack) << "reduce-scatter, element " << i;
    }
    if (exact) {
      ASSERT_EQ(std::memcmp(&out[i], &want, sizeof(float)), 0) << "all-reduce, element " << i;
      if (i / per == w.rank) {
        ASSERT_EQ(std::memcmp(&chunk[i % per], &want, sizeof(float)), 0)
            << "reduce-scatter, element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace conformance
