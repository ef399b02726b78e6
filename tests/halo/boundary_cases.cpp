// Every boundary rule (SPEC §4.2) on each side, forward and backward, with edge shards
// narrower than the padding so that reflected, symmetric and wrapped rows come from other
// ranks (and multi-hop halos: 1-row shards with lo = hi = 3).
#include "check.hpp"

namespace halo {
namespace {

const int32_t kRules[] = {WEFT_BOUNDARY_NONE,      WEFT_BOUNDARY_CONSTANT,  WEFT_BOUNDARY_REFLECT,
                          WEFT_BOUNDARY_SYMMETRIC, WEFT_BOUNDARY_REPLICATE, WEFT_BOUNDARY_PERIODIC};

// The largest overhang (<= want) the rule allows on extent n.
int64_t PadFor(int32_t rule, int64_t want, int64_t n) {
  if (rule == WEFT_BOUNDARY_NONE) return 0;
  if (rule == WEFT_BOUNDARY_REFLECT) return std::min(want, n - 1);
  if (rule == WEFT_BOUNDARY_SYMMETRIC || rule == WEFT_BOUNDARY_PERIODIC) return std::min(want, n);
  return want;
}

void ForwardAndBackward(Case c, uint64_t salt) {
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  CheckWindows(*s);
  const DataFn data = FormulaData(s->geo);
  ExchangeAndCheck(*s, data);
  AccumulateAndCheck(*s, SmallGrad(salt), 0, data);
  AccumulateAndCheck(*s, SmallGrad(salt + 1), 1, data);
}

TEST(Boundary, EveryRuleOnEachSide) {
  const int64_t k = TheWorld().size;
  // Edge pieces of 1 row, inner ones of 2: pads of 2 and 3 reach rows of other ranks.
  std::vector<int64_t> sizes;
  int64_t n = 0;
  for (int64_t i = 0; i < k; ++i) sizes.push_back(i == 0 || i == k - 1 ? 1 : 2);
  sizes.back() += k <= 2 ? 4 : 0;
  for (int64_t x : sizes) n += x;
  for (size_t i = 0; i < 6; ++i)
    for (size_t j : {i, (i + 1) % 6, (i + 3) % 6}) {
      Case c;
      c.mesh = Mesh1D();
      c.shape = {n, 3};
      c.placements = {"S0"};
      c.splits = {sizes};
      DimSpec d;
      d.rule_lo = kRules[i], d.rule_hi = kRules[j];
      d.lo = 1, d.hi = 2;
      d.pad_lo = PadFor(d.rule_lo, 2, n), d.pad_hi = PadFor(d.rule_hi, 3, n);
      c.halo.dims = {d};
      c.halo.constant = 2.5;
      SCOPED_TRACE(c.Name());
      ForwardAndBackward(c, 100 + i * 6 + j);
      ASSERT_FALSE(AnyRankFailed());
    }
}

TEST(Boundary, LimitsReachedExactly) {
  // The largest legal overhang of each rule on a short dim (reflect N-1, symmetric and
  // periodic N), on the column dim of a 2-D tensor sharded along it.
  const int64_t k = TheWorld().size, n = k + 2;
  for (int32_t rule : {WEFT_BOUNDARY_REFLECT, WEFT_BOUNDARY_SYMMETRIC, WEFT_BOUNDARY_PERIODIC,
                       WEFT_BOUNDARY_REPLICATE}) {
    Case c;
    c.mesh = Mesh1D();
    c.shape = {2, n};
    c.placements = {"S1"};
    DimSpec d;
    d.dim = 1;
    d.rule_lo = d.rule_hi = rule;
    d.lo = d.hi = 1;
    d.pad_lo = d.pad_hi = PadFor(rule, n, n);
    c.halo.dims = {d};
    SCOPED_TRACE(c.Name());
    ForwardAndBackward(c, 7 + uint64_t(rule));
    ASSERT_FALSE(AnyRankFailed());
  }
}

TEST(Boundary, MultiHopOneRowShards) {
  // lo = hi = 3 over 1-row shards: windows read owners up to three hops away, and the
  // boundary rows come from ranks up to three away too.
  const int64_t k = TheWorld().size;
  std::vector<int64_t> sizes(static_cast<size_t>(k), 1);
  sizes.back() = 4;
  const int64_t n = k + 3;
  for (int32_t rule : {WEFT_BOUNDARY_REFLECT, WEFT_BOUNDARY_PERIODIC, WEFT_BOUNDARY_SYMMETRIC,
                       WEFT_BOUNDARY_CONSTANT}) {
    for (int32_t stencil : {WEFT_STENCIL_BOX, WEFT_STENCIL_STAR}) {
      Case c;
      c.mesh = Mesh1D();
      c.shape = {n, 2};
      c.placements = {"S0"};
      c.splits = {sizes};
      DimSpec d;
      d.rule_lo = rule, d.rule_hi = WEFT_BOUNDARY_PERIODIC;
      d.lo = d.hi = 3;
      d.pad_lo = d.pad_hi = 3;
      c.halo.dims = {d};
      c.halo.stencil = stencil;
      if (stencil == WEFT_STENCIL_STAR) {
        // A second windowed (unsharded) dim, so that the star has corners to skip.
        DimSpec cols;
        cols.dim = 1;
        cols.rule_lo = WEFT_BOUNDARY_CONSTANT, cols.rule_hi = WEFT_BOUNDARY_REPLICATE;
        cols.pad_lo = cols.pad_hi = 1;
        c.halo.dims.push_back(cols);
      }
      SCOPED_TRACE(c.Name());
      ForwardAndBackward(c, 31 + uint64_t(rule));
      ASSERT_FALSE(AnyRankFailed());
    }
  }
}

}  // namespace
}  // namespace halo
