// 1-D convolution windows (SPEC §4.5) in explicit mode: kernels 1-7, strides 1-3, dilations
// 1-3, paddings 0-3 on even, chunk-uneven, ragged, one-row and empty-shard splits. Every
// combination checks weft_halo_derive_windows and the padded shapes against the formula
// computed here; a deterministic sample (all of them on small worlds) also exchanges and
// compares with the slice of the globally padded tensor, under rotating boundary rules.
#include "check.hpp"

namespace halo {
namespace {

struct Split {
  const char* name;
  int64_t n;
  std::vector<int64_t> sizes;  // empty: chunk
};

std::vector<Split> Splits(int64_t k) {
  std::vector<int64_t> ragged, empty, one(static_cast<size_t>(k), 1);
  int64_t nr = 0, ne = 0;
  for (int64_t i = 0; i < k; ++i) {
    ragged.push_back(1 + (i * 2) % 3);
    empty.push_back(i % 2 == 1 || k == 1 ? 1 + i % 3 : 0);
    nr += ragged.back();
  }
  empty.back() += 2;
  for (int64_t e : empty) ne += e;
  return {{"even", 3 * k, {}},
          {"chunk-uneven", 3 * k - 1, {}},
          {"ragged", nr, ragged},
          {"one-row", k, one},
          {"empty-shards", ne, empty}};
}

// A rule for a side with `pad` rows of overhang on extent n, rotating through all six and
// falling back to CONSTANT where the rule's limit (SPEC §4.2) forbids the overhang.
int32_t RuleFor(int64_t i, int64_t pad, int64_t n) {
  static const int32_t kRules[] = {WEFT_BOUNDARY_CONSTANT,  WEFT_BOUNDARY_REFLECT,
                                   WEFT_BOUNDARY_SYMMETRIC, WEFT_BOUNDARY_REPLICATE,
                                   WEFT_BOUNDARY_PERIODIC,  WEFT_BOUNDARY_NONE};
  const int32_t r = kRules[i % 6];
  if (pad == 0) return r;
  if (r == WEFT_BOUNDARY_NONE || (r == WEFT_BOUNDARY_REFLECT && pad > n - 1) ||
      ((r == WEFT_BOUNDARY_SYMMETRIC || r == WEFT_BOUNDARY_PERIODIC) && pad > n))
    return WEFT_BOUNDARY_CONSTANT;
  return r;
}

// Compares weft_halo_derive_windows with the reference pieces (empty windows: position free).
void CheckDerived(const Layout& layout, const ConvOp& op, const ConvPieces& want, int64_t nout,
                  const std::string& what) {
  const int64_t k = TheWorld().size;
  weft_window_op_t wop = WEFT_WINDOW_OP_INIT;
  wop.kernel = op.k, wop.stride = op.s, wop.dilation = op.d;
  wop.pad_lo = op.pad_lo, wop.pad_hi = op.pad_hi;
  std::vector<int64_t> windows(static_cast<size_t>(2 * k), -99), sizes(static_cast<size_t>(k));
  int64_t extent = -1;
  const weft_status_t st = weft_halo_derive_windows(layout.l, 0, &wop, windows.data(),
                                                    static_cast<int32_t>(k), sizes.data(), &extent);
  if (nout < 1) {
    EXPECT_EQ(st, WEFT_ERR_INVALID_ARGUMENT) << "no output rows must fail: " << what;
    return;
  }
  ASSERT_EQ(st, WEFT_OK) << weft_last_error() << " | " << what;
  EXPECT_EQ(extent, nout) << what;
  EXPECT_EQ(sizes, want.out_sizes) << what;
  for (size_t p = 0; p < static_cast<size_t>(k); ++p) {
    if (want.out_sizes[p] == 0) {
      EXPECT_EQ(windows[2 * p], windows[2 * p + 1])
          << "piece " << p << " owns no output | " << what;
      continue;
    }
    EXPECT_EQ(windows[2 * p], want.begin[p]) << "piece " << p << " | " << what;
    EXPECT_EQ(windows[2 * p + 1], want.end[p]) << "piece " << p << " | " << what;
  }
}

TEST(ConvWindows, OneDimSweep) {
  const World& w = TheWorld();
  const int64_t k = w.size;
  // Exchanges are sampled on bigger worlds (8 oversubscribed ranks are slow); windows and
  // derived windows are checked for every combination everywhere.
  const int64_t every = k <= 2 ? 1 : k <= 4 ? 3 : 9;
  int64_t combo = 0, exchanged = 0;
  for (const Split& sp : Splits(k)) {
    Case c;
    c.mesh = Mesh1D();
    c.shape = {sp.n, 2};
    c.placements = {"S0"};
    c.splits = {sp.sizes};
    c.type = "float32";
    Mesh mesh(c.mesh);
    Layout layout(mesh, c.shape, TypeNamed(c.type).dl, c.placements, c.splits);
    ASSERT_EQ(layout.status, WEFT_OK);
    std::vector<int64_t> offsets(static_cast<size_t>(k)), sizes(static_cast<size_t>(k));
    for (int32_t r = 0; r < k; ++r) {
      int64_t shape[2], off[2];
      weft_layout_local_shape(layout.l, r, shape, off);
      offsets[static_cast<size_t>(r)] = off[0], sizes[static_cast<size_t>(r)] = shape[0];
    }
    for (int64_t ker = 1; ker <= 7; ++ker)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t d = 1; d <= 3; ++d)
          for (int64_t p = 0; p <= 3; ++p, ++combo) {
            const ConvOp op{ker, s, d, p, (p + ker + s) % 4};
            const int64_t nout = ConvOutExtent(sp.n, op);
            const ConvPieces want = ConvWindows(sp.n, op, offsets, sizes);
            const std::string what = std::string(sp.name) + " N=" + std::to_string(sp.n) +
                                     " k=" + std::to_string(ker) + " s=" + std::to_string(s) +
                                     " d=" + std::to_string(d) + " pad=" + std::to_string(p) + "/" +
                                     std::to_string(op.pad_hi);
            CheckDerived(layout, op, want, nout, what);
            if (nout < 1) continue;
            DimSpec dim;
            dim.pad_lo = op.pad_lo, dim.pad_hi = op.pad_hi;
            dim.rule_lo = RuleFor(combo, op.pad_lo, sp.n);
            dim.rule_hi = RuleFor(combo / 6 + 1, op.pad_hi, sp.n);
            for (size_t r = 0; r < static_cast<size_t>(k); ++r)
              dim.windows.insert(dim.windows.end(), {want.begin[r], want.end[r]});
            c.halo.dims = {dim};
            c.halo.constant = combo % 2 ? 0 : -3;
            auto setup = MakeSetup(c);
            ASSERT_EQ(setup->status, WEFT_OK) << what;
            CheckWindows(*setup);
            if (combo % every != 0) continue;
            ++exchanged;
            ExchangeAndCheck(*setup, FormulaData(setup->geo));
            if (combo % (3 * every) == 0)
              AccumulateAndCheck(*setup, SmallGrad(uint64_t(combo)), int32_t(combo % 2),
                                 FormulaData(setup->geo));
            ASSERT_FALSE(AnyRankFailed()) << what;
          }
  }
  EXPECT_GT(exchanged, 50);
}

}  // namespace
}  // namespace halo
