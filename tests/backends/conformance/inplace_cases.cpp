// The in-place forms (send and recv the same tensor): the contribution sits at the start of the
// buffer and the result replaces it. These are where a backend's algorithm can read a block
// after having overwritten it (a ring all-gather receiving its left neighbour's block over its
// own contribution, a reduce-scatter whose result lands on another member's input block), so
// every size class is tried: tiny, past the single-copy threshold, past the ring thresholds.
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "world.hpp"

namespace conformance {
namespace {

const DLDataType kI32{kDLInt, 32, 1};

// Rank r's contribution at index i (for gathers: its own i-th element).
int32_t Value(int32_t r, int64_t i) { return static_cast<int32_t>((r * 7919 + i * 31) % 100003); }

const int64_t kSizes[] = {1, 3, 1000, 20000};  // 4 B .. 80 KiB per member

// Member r's block: per * weight(r) elements, packed in member order.
struct Blocks {
  std::vector<int64_t> counts, displs;
  int64_t total = 0;
};
template <typename Weight>
Blocks MakeBlocks(int32_t n, int64_t per, Weight weight) {
  Blocks b;
  b.counts.resize(n);
  b.displs.resize(n);
  for (int32_t r = 0; r < n; ++r) b.counts[r] = per * weight(r);
  std::exclusive_scan(b.counts.begin(), b.counts.end(), b.displs.begin(), int64_t{0});
  b.total = b.displs.back() + b.counts.back();
  return b;
}

TEST(InPlace, Allreduce) {
  World& w = TheWorld();
  for (int64_t count : {int64_t{1}, int64_t{37}, int64_t{5000}, int64_t{40000}}) {
    for (int32_t op : {WEFT_REDUCE_SUM, WEFT_REDUCE_MAX}) {
      SCOPED_TRACE("count " + std::to_string(count) + " op " + std::to_string(op));
      weft::test::Buffer<int32_t> buf(count);
      for (int64_t i = 0; i < count; ++i) buf[i] = Value(w.rank, i);
      Tensor t(buf.data(), count, kI32);
      WEFT_OK_OR_FAIL(
          weft_allreduce(w.ctx, nullptr, 0, t.get(), t.get(), op, nullptr, nullptr, nullptr));
      int failures = 0;
      for (int64_t i = 0; i < count && failures < 5; ++i) {
        int32_t want = Value(0, i);
        for (int32_t r = 1; r < w.size; ++r)
          want = op == WEFT_REDUCE_SUM ? want + Value(r, i) : std::max(want, Value(r, i));
        if (buf[i] != want) {
          ADD_FAILURE() << "element " << i << ": " << buf[i] << " != " << want;
          ++failures;
        }
      }
    }
  }
}

// Gathers: even blocks, then uneven ones (zeros included) whose blocks in the buffer overlap
// the contribution at its start.
TEST(InPlace, AllgatherAndAllgatherv) {
  World& w = TheWorld();
  for (int64_t per : kSizes) {
    for (bool uneven : {false, true}) {
      SCOPED_TRACE("per " + std::to_string(per) + (uneven ? " uneven" : " even"));
      const auto [counts, displs, total] =
          MakeBlocks(w.size, per, [uneven](int32_t r) { return uneven ? (r * 5 + 1) % 4 : 1; });
      weft::test::Buffer<int32_t> buf(total + 1, -1);
      for (int64_t i = 0; i < counts[w.rank]; ++i) buf[i] = Value(w.rank, i);
      Tensor send(buf.data(), counts[w.rank], kI32), recv(buf.data(), total, kI32);
      if (uneven)
        WEFT_OK_OR_FAIL(weft_allgatherv(w.ctx, nullptr, 0, send.get(), recv.get(), counts.data(),
                                        displs.data(), nullptr, nullptr, nullptr));
      else
        WEFT_OK_OR_FAIL(
            weft_allgather(w.ctx, nullptr, 0, send.get(), recv.get(), nullptr, nullptr, nullptr));
      int failures = 0;
      for (int32_t r = 0; r < w.size; ++r)
        for (int64_t i = 0; i < counts[r] && failures < 5; ++i)
          if (buf[displs[r] + i] != Value(r, i)) {
            ADD_FAILURE() << "block " << r << " element " << i << ": " << buf[displs[r] + i]
                          << " != " << Value(r, i);
            ++failures;
          }
      EXPECT_EQ(buf[total], -1) << "wrote past the buffer";
    }
  }
}

// Reduce-scatters: the result replaces the start of the input, i.e. block 0's place, which
// other members' blocks still need until they have been sent.
TEST(InPlace, ReduceScatterAndReduceScatterv) {
  World& w = TheWorld();
  for (int64_t per : kSizes) {
    for (bool uneven : {false, true}) {
      SCOPED_TRACE("per " + std::to_string(per) + (uneven ? " uneven" : " even"));
      // Uneven: member 0 has nothing, so each result overlaps its own input block.
      const auto [counts, displs, total] =
          MakeBlocks(w.size, per, [uneven](int32_t r) { return uneven ? r % 4 : 1; });
      weft::test::Buffer<int32_t> buf(total + 1, -1);
      for (int64_t i = 0; i < total; ++i) buf[i] = Value(w.rank, i);
      Tensor send(buf.data(), total, kI32), recv(buf.data(), counts[w.rank], kI32);
      if (uneven)
        WEFT_OK_OR_FAIL(weft_reduce_scatterv(w.ctx, nullptr, 0, send.get(), recv.get(),
                                             counts.data(), WEFT_REDUCE_SUM, nullptr, nullptr,
                                             nullptr));
      else
        WEFT_OK_OR_FAIL(weft_reduce_scatter(w.ctx, nullptr, 0, send.get(), recv.get(),
                                            WEFT_REDUCE_SUM, nullptr, nullptr, nullptr));
      int failures = 0;
      for (int64_t i = 0; i < counts[w.rank] && failures < 5; ++i) {
        int32_t want = 0;
        for (int32_t r = 0; r < w.size; ++r) want += Value(r, displs[w.rank] + i);
        if (buf[i] != want) {
          ADD_FAILURE() << "element " << i << ": " << buf[i] << " != " << want;
          ++failures;
        }
      }
      EXPECT_EQ(buf[total], -1) << "wrote past the buffer";
    }
  }
}

}  // namespace
}  // namespace conformance
