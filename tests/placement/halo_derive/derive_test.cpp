// Window derivation (SPEC §4.5) against a brute-force reference: every output's reads and
// anchor enumerated, over sweeps of kernels, strides, dilations, paddings, extents and even,
// torch.chunk and ragged splits (empty and one-row pieces included).
#include "placement/halo/derive/derive.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include "tests/placement/halo_derive/reference.hpp"

namespace weft::placement::halo {
namespace {

namespace ref = weft_test::derive_ref;

WindowOp ToOp(const ref::Op& o) {
  return WindowOp{static_cast<WindowKind>(o.kind),
                  o.kernel,
                  o.stride,
                  o.dilation,
                  o.pad_lo,
                  o.pad_hi,
                  o.out_extent};
}

std::vector<RowRange> ToRanges(const std::vector<ref::Range>& owned) {
  std::vector<RowRange> out;
  for (const ref::Range& r : owned) out.push_back({r.begin, r.end});
  return out;
}

// "" when DeriveWindows agrees with the reference, else what differs.
std::string Mismatch(int64_t n, const std::vector<ref::Range>& owned, const ref::Op& op) {
  const ref::Expected want = ref::Reference(n, owned, op);
  const std::vector<RowRange> ranges = ToRanges(owned);
  const Result<DerivedWindows> got = DeriveWindows(n, ranges, ToOp(op));
  const std::string where = ref::Describe(n, owned, op) + ": ";
  if (!want.valid) {
    if (got.ok()) return where + "accepted an operator with no output rows";
    if (got.status().code() != Code::kInvalidArgument || got.status().message().empty())
      return where + "wrong error: " + got.status().message();
    return "";
  }
  if (!got.ok()) return where + "rejected: " + got.status().message();
  if (got->out_extent != want.out_extent)
    return where + "out_extent " + std::to_string(got->out_extent) + " want " +
           std::to_string(want.out_extent);
  // The rule itself must give contiguous runs in piece order: owners never go back.
  for (size_t j = 1; j < want.owner.size(); ++j)
    if (want.owner[j] < want.owner[j - 1])
      return where + "the ownership rule is not monotone at output " + std::to_string(j);
  if (got->out_sizes != want.out_sizes) return where + "out_sizes differ";
  for (size_t p = 0; p < owned.size(); ++p) {
    const RowRange w = got->windows[p];
    if (!(ref::Range{w.begin, w.end} == want.windows[p]))
      return where + "piece " + std::to_string(p) + " window [" + std::to_string(w.begin) + ", " +
             std::to_string(w.end) + ") want [" + std::to_string(want.windows[p].begin) + ", " +
             std::to_string(want.windows[p].end) + ")";
    if (w.begin < w.end && (w.begin < -op.pad_lo || w.end > n + op.pad_hi))
      return where + "window of piece " + std::to_string(p) + " leaves the padded extent";
  }
  return "";
}

// Runs every split of every extent in [1, max_n] through `check_op`; reports the first few
// mismatches and fails if there is any.
class Sweep {
 public:
  void Extents(int64_t max_n, const std::vector<ref::Op>& ops) {
    for (int64_t n = 1; n <= max_n; ++n) {
      std::mt19937 rng(static_cast<uint32_t>(n));
      const auto splits = ref::Splits(n, rng);
      for (const ref::Op& op : ops)
        for (const auto& sizes : splits) Check(n, ref::FromSizes(sizes), op);
    }
  }
  void Check(int64_t n, const std::vector<ref::Range>& owned, const ref::Op& op) {
    ++cases_;
    const std::string m = Mismatch(n, owned, op);
    if (m.empty()) return;
    if (++failures_ <= 5) ADD_FAILURE() << m;
  }
  ~Sweep() {
    EXPECT_EQ(failures_, 0) << "of " << cases_ << " cases";
    EXPECT_GT(cases_, 0);
  }

 private:
  int64_t cases_ = 0, failures_ = 0;
};

// Kernels 1..7, strides 1..3, dilations 1..3, every pad_lo/pad_hi in 0..3.
std::vector<ref::Op> KernelOps(int32_t kind) {
  std::vector<ref::Op> ops;
  for (int64_t k = 1; k <= 7; ++k)
    for (int64_t s = 1; s <= 3; ++s)
      for (int64_t d = 1; d <= 3; ++d)
        for (int64_t lo = 0; lo <= 3; ++lo)
          for (int64_t hi = 0; hi <= 3; ++hi) ops.push_back({kind, k, s, d, lo, hi, 0});
  return ops;
}

TEST(HaloDeriveConvTest, MatchesBruteForce) { Sweep().Extents(40, KernelOps(ref::kConv)); }

TEST(HaloDerivePoolTest, MatchesBruteForce) { Sweep().Extents(24, KernelOps(ref::kPool)); }

TEST(HaloDeriveConvTransposeTest, MatchesBruteForce) {
  Sweep().Extents(40, KernelOps(ref::kConvTranspose));
}

TEST(HaloDeriveConvTransposeTest, LargeDilationsAndStrides) {
  // Gaps between reached outputs (stride > kernel span, stride and dilation sharing factors).
  std::vector<ref::Op> ops;
  for (int64_t k = 1; k <= 4; ++k)
    for (int64_t s : {4, 5, 6, 9})
      for (int64_t d : {2, 4, 6, 7})
        for (int64_t p : {0, 3, 8}) ops.push_back({ref::kConvTranspose, k, s, d, p, 1, 0});
  Sweep().Extents(16, ops);
}

// The closed form weft/halo_windows.h documents for CONV_TRANSPOSE, written as the header
// says it: per tap t, the inputs R_t = [ceil((j0 + p - t d)/s), floor((j1 + p - t d)/s)] ∩
// [0, N) land in outputs j0..j1; the window is [least, greatest + 1) of their union.
ref::Range DocumentedTransposeWindow(int64_t n, int64_t j0, int64_t j1, const ref::Op& op) {
  auto floor_div = [](int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  };
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t t = 0; t < op.kernel; ++t) {
    const int64_t a =
        std::max<int64_t>(-floor_div(-(j0 + op.pad_lo - t * op.dilation), op.stride), 0);
    const int64_t b = std::min(floor_div(j1 + op.pad_lo - t * op.dilation, op.stride), n - 1);
    if (a > b) continue;
    lo = std::min(lo, a);
    hi = std::max(hi, b);
  }
  return lo > hi ? ref::Range{0, 0} : ref::Range{lo, hi + 1};
}

TEST(HaloDeriveConvTransposeTest, DocumentedFormulaIsWhatTheCodeReturns) {
  int64_t checked = 0;
  for (int64_t n = 1; n <= 24; ++n) {
    std::mt19937 rng(static_cast<uint32_t>(n));
    for (const auto& sizes : ref::Splits(n, rng))
      for (int64_t k = 1; k <= 5; ++k)
        for (int64_t s = 1; s <= 3; ++s)
          for (int64_t d = 1; d <= 3; ++d)
            for (int64_t p = 0; p <= 3; ++p) {
              const ref::Op op{ref::kConvTranspose, k, s, d, p, 0, 0};
              const auto got = DeriveWindows(n, ToRanges(ref::FromSizes(sizes)), ToOp(op));
              if (!got.ok()) continue;  // no output rows
              int64_t j0 = 0;
              for (size_t q = 0; q < sizes.size(); ++q) {
                const int64_t j1 = j0 + got->out_sizes[q] - 1;
                if (j1 < j0) continue;  // owns no outputs
                const ref::Range want = DocumentedTransposeWindow(n, j0, j1, op);
                const RowRange w = got->windows[q];
                // Outputs no input reaches (holes when s > d(k-1) + 1) read nothing: any empty
                // window will do.
                const ref::Range have =
                    w.begin == w.end ? ref::Range{0, 0} : ref::Range{w.begin, w.end};
                ASSERT_EQ(want, have)
                    << ref::Describe(n, ref::FromSizes(sizes), op) << " piece " << q;
                j0 = j1 + 1;
                ++checked;
              }
            }
  }
  EXPECT_GT(checked, 10000);
}

TEST(HaloDeriveConvTransposeTest, DilationLeavesRowsUnread) {
  // N = 2 over [0,1) [1,2); k = 2, s = 1, d = 2, p = 1: N_out = 2, one output each. Output 0
  // is reached only by row 1 (tap 0: 1·1 - 1 + 0 = 0), output 1 only by row 0 (tap 1:
  // 0 - 1 + 2 = 1). The old formula [ceil((j0 + p - d(k-1))/s), floor((j1 + p)/s) + 1) said
  // [0, 2) for both.
  const auto got = DeriveWindows(2, std::vector<RowRange>{{0, 1}, {1, 2}},
                                 WindowOp{WindowKind::kConvTranspose, 2, 1, 2, 1, 0, 0});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->out_sizes, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(got->windows[0].begin, 1);
  EXPECT_EQ(got->windows[0].end, 2);
  EXPECT_EQ(got->windows[1].begin, 0);
  EXPECT_EQ(got->windows[1].end, 1);
}

TEST(HaloDeriveInterpTest, NearestAndLinearMatchBruteForce) {
  std::vector<ref::Op> ops;
  for (int32_t kind : {ref::kNearest, ref::kLinear, ref::kLinearAligned})
    for (int64_t out = 1; out <= 60; ++out) ops.push_back({kind, 1, 1, 1, 0, 0, out});
  Sweep().Extents(40, ops);
}

TEST(HaloDeriveAttentionTest, MatchesBruteForce) {
  Sweep sweep;
  for (int64_t n = 1; n <= 40; ++n) {
    std::mt19937 rng(static_cast<uint32_t>(n));
    for (const auto& sizes : ref::Splits(n, rng))
      for (int64_t k = 1; k <= n; k += 2)
        sweep.Check(n, ref::FromSizes(sizes), {ref::kAttention, k, 1, 1, 0, 0, 0});
  }
}

TEST(HaloDeriveConvTest, EmptyPiecesAnywhereGetEmptyWindowsAtTheirClampedStart) {
  // Empty pieces at their prefix offset (mid-dim) and beyond the extent.
  Sweep sweep;
  const std::vector<ref::Range> owned = {{0, 0}, {0, 3}, {3, 3}, {3, 4}, {9, 9}, {4, 7}, {7, 7}};
  for (const ref::Op& op : KernelOps(ref::kConv)) sweep.Check(7, owned, op);
  const auto got = DeriveWindows(7, ToRanges(owned), WindowOp{});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->windows[4].begin, 7);
  EXPECT_EQ(got->windows[4].end, 7);
  EXPECT_EQ(got->windows[2].begin, 3);
}

TEST(HaloDeriveConvTest, WorkedExampleStrideTwo) {
  // N = 8 over [0,4) [4,8); k = 3, s = 2, padding 1+1: N_out = 4, anchors 0, 2, 4, 6.
  const std::vector<RowRange> owned = {{0, 4}, {4, 8}};
  const auto got = DeriveWindows(8, owned, WindowOp{WindowKind::kConv, 3, 2, 1, 1, 1, 0});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->out_extent, 4);
  EXPECT_EQ(got->out_sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(got->windows[0].begin, -1);  // outputs 0..1 read rows -1..3
  EXPECT_EQ(got->windows[0].end, 4);
  EXPECT_EQ(got->windows[1].begin, 3);  // outputs 2..3 read rows 3..7; row 8 is never read
  EXPECT_EQ(got->windows[1].end, 8);
}

TEST(HaloDeriveConvTest, SameConvKeepsTheInputSplit) {
  const std::vector<RowRange> owned = {{0, 5}, {5, 6}, {6, 6}, {6, 13}};
  for (int64_t k : {1, 3, 5, 7})
    for (int64_t d : {1, 2}) {
      const int64_t p = d * (k - 1) / 2;
      const auto got = DeriveWindows(13, owned, WindowOp{WindowKind::kConv, k, 1, d, p, p, 0});
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(got->out_sizes, (std::vector<int64_t>{5, 1, 0, 7})) << "k=" << k << " d=" << d;
    }
}

TEST(HaloDeriveConvTest, TinyEdgePieceOwnsNoOutputs) {
  // N = 4 over [0,3) [3,4); k = 3, s = 3: one output, anchored at row 1.
  const std::vector<RowRange> owned = {{0, 3}, {3, 4}};
  const auto got = DeriveWindows(4, owned, WindowOp{WindowKind::kConv, 3, 3, 1, 0, 0, 0});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->out_sizes, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(got->windows[1].begin, 3);
  EXPECT_EQ(got->windows[1].end, 3);
}

TEST(HaloDeriveInterpTest, IntegerUpsamplingScalesTheSplit) {
  const std::vector<RowRange> owned = {{0, 3}, {3, 3}, {3, 4}, {4, 10}};
  for (int64_t m = 1; m <= 4; ++m) {
    const auto got =
        DeriveWindows(10, owned, WindowOp{WindowKind::kInterpLinear, 1, 1, 1, 0, 0, 10 * m});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(got->out_sizes, (std::vector<int64_t>{3 * m, 0, m, 6 * m}));
  }
}

TEST(HaloDeriveConvTest, HugeExtentsStayExact) {
  // Closed forms, not per-row loops: 2^50 rows over 3 pieces.
  const int64_t n = int64_t{1} << 50;
  const std::vector<RowRange> owned = {{0, n / 3}, {n / 3, n - 5}, {n - 5, n}};
  const auto got = DeriveWindows(n, owned, WindowOp{WindowKind::kConv, 4, 2, 3, 2, 3, 0});
  ASSERT_TRUE(got.ok()) << got.status().message();
  // N_out = ⌊(n + 5 − 9 − 1)/2⌋ + 1; anchor(j) = 2j − 2 + 4.
  EXPECT_EQ(got->out_extent, (n - 5) / 2 + 1);
  const int64_t first_of_1 = (n / 3 - 2 + 1) / 2;  // first j with 2j + 2 >= n/3
  EXPECT_EQ(got->out_sizes[0], first_of_1);
  EXPECT_EQ(got->windows[1].begin, 2 * first_of_1 - 2);
  EXPECT_EQ(got->windows[2].end, 2 * (got->out_extent - 1) - 2 + 9 + 1);
}

struct BadCase {
  const char* label;
  int64_t n;
  std::vector<RowRange> owned;
  WindowOp op;
  const char* want;  // in the message
};

TEST(HaloDeriveErrorsTest, NameTheFieldAndValue) {
  const std::vector<RowRange> two = {{0, 4}, {4, 8}};
  const WindowKind conv = WindowKind::kConv, convt = WindowKind::kConvTranspose;
  const WindowKind nearest = WindowKind::kInterpNearest, att = WindowKind::kNeighborhoodAttention;
  const int64_t big = int64_t{1} << 62;
  const std::vector<BadCase> cases = {
      {"kernel 0", 8, two, {conv, 0, 1, 1, 0, 0, 0}, "op.kernel is 0"},
      {"stride 0", 8, two, {WindowKind::kPool, 2, 0, 1, 0, 0, 0}, "op.stride is 0"},
      {"dilation 0", 8, two, {convt, 2, 1, 0, 0, 0, 0}, "op.dilation is 0"},
      {"pad_lo < 0", 8, two, {conv, 3, 1, 1, -1, 0, 0}, "op.pad_lo is -1"},
      {"pad_hi < 0", 8, two, {convt, 3, 1, 1, 0, -2, 0}, "op.pad_hi is -2"},
      {"conv no outputs", 8, two, {conv, 5, 1, 2, 0, 0, 0}, "no output rows"},
      {"conv_transpose no outputs", 1, {{0, 1}}, {convt, 1, 1, 1, 1, 0, 0}, "no output rows"},
      {"even attention", 8, two, {att, 4, 1, 1, 0, 0, 0}, "op.kernel is 4"},
      {"attention kernel > N", 8, two, {att, 9, 1, 1, 0, 0, 0}, "op.kernel is 9"},
      {"attention stride", 8, two, {att, 3, 2, 1, 0, 0, 0}, "op.stride is 2"},
      {"interp out_extent 0", 8, two, {nearest, 1, 1, 1, 0, 0, 0}, "op.out_extent is 0"},
      {"interp padding", 8, two, {nearest, 1, 1, 1, 1, 0, 5}, "op.pad_lo is 1"},
      {"interp kernel", 8, two, {WindowKind::kInterpLinear, 2, 1, 1, 0, 0, 5}, "op.kernel is 2"},
      {"unknown kind", 8, two, {static_cast<WindowKind>(7), 1, 1, 1, 0, 0, 0}, "op.kind is 7"},
      {"extent 0", 0, {{0, 0}}, {}, "extent is 0"},
      {"gap between pieces", 8, {{0, 3}, {4, 8}}, {}, "owned[1]"},
      {"pieces out of order", 8, {{4, 8}, {0, 4}}, {}, "owned[0]"},
      {"begin > end", 8, {{0, 8}, {5, 4}}, {}, "owned[1]"},
      {"short cover", 8, {{0, 3}, {3, 7}}, {}, "owned covers [0, 7)"},
      {"overflowing padding", 8, two, {conv, 1, 1, 1, big, big, 0}, "overflows"},
      {"overflowing conv_transpose", big, {{0, big}}, {convt, 3, 4, 1, 0, 0, 0}, "overflows"},
      {"overflowing interpolation", big, {{0, big}}, {nearest, 1, 1, 1, 0, 0, 2}, "overflows"},
  };
  for (const BadCase& c : cases) {
    const auto got = DeriveWindows(c.n, c.owned, c.op);
    ASSERT_FALSE(got.ok()) << c.label;
    EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << c.label;
    EXPECT_NE(got.status().message().find(c.want), std::string::npos)
        << c.label << ": " << got.status().message();
  }
}

TEST(HaloDeriveErrorsTest, FieldPrefixIsTheCallersName) {
  const std::vector<RowRange> one = {{0, 8}};
  const auto got = DeriveWindows(8, one, WindowOp{WindowKind::kConv, 0, 1, 1, 0, 0, 0}, "op->");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message().rfind("op->kernel is 0", 0), 0u) << got.status().message();
  const auto none = DeriveWindows(8, one, WindowOp{WindowKind::kConv, 5, 1, 2, 0, 0, 0}, "op->");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message().rfind("op = conv (kernel 5, stride 1, dilation 2", 0), 0u)
      << none.status().message();
}

}  // namespace
}  // namespace weft::placement::halo
