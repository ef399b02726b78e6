// Box and star stencils (SPEC §4.3) on 2-D and 3-D meshes: box windows get their corners from
// the diagonal owners, star windows get zeros there (out of place) or keep the caller's
// bytes (in place), boundary corners included; and the in-place exchange never writes the
// owned cells, checked byte for byte with NaN payloads that only a byte copy preserves.
#include "check.hpp"

namespace halo {
namespace {

// Tensor [7, 6] over the 2-D mesh, both dims sharded (chunk, uneven) and windowed.
Case TwoD(int32_t stencil) {
  Case c;
  c.mesh = Mesh2D();
  c.shape = {7, 6};
  c.placements = {"S0", "S1"};
  DimSpec rows, cols;
  rows.dim = 0, cols.dim = 1;
  rows.lo = rows.hi = 1, rows.pad_lo = rows.pad_hi = 1;
  rows.rule_lo = WEFT_BOUNDARY_REFLECT, rows.rule_hi = WEFT_BOUNDARY_CONSTANT;
  cols.lo = 2, cols.hi = 1, cols.pad_lo = 2, cols.pad_hi = 1;
  cols.rule_lo = WEFT_BOUNDARY_PERIODIC, cols.rule_hi = WEFT_BOUNDARY_REPLICATE;
  c.halo.dims = {rows, cols};
  c.halo.stencil = stencil;
  return c;
}

int64_t CountCells(const Setup& s, CellKind kind) {
  int64_t n = 0;
  ForEachIndex(s.Window().Extents(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> g = i;
    for (size_t d = 0; d < g.size(); ++d) g[d] += s.Window().begin[d];
    n += ExpectedCell(s.geo, s.me, g).kind == kind;
  });
  return n;
}

void AllModes(const Case& c) {
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  CheckWindows(*s);
  // Every non-empty rank has corners: a neighbour or a boundary on each side of each dim.
  int64_t owned = 1;
  for (int64_t e : s->Owned().Extents()) owned *= e;
  if (c.halo.stencil == WEFT_STENCIL_STAR && owned > 0) {
    EXPECT_GT(CountCells(*s, CellKind::kSkipped), 0) << "the case itself has no star corners";
  }
  const DataFn data = FormulaData(s->geo);
  ExchangeAndCheck(*s, data, false);
  ExchangeAndCheck(*s, data, true);
  AccumulateAndCheck(*s, SmallGrad(5), 0, data);
  AccumulateAndCheck(*s, SmallGrad(6), 1, data);
}

TEST(Stencil, TwoDBoxSendsCorners) { AllModes(TwoD(WEFT_STENCIL_BOX)); }

TEST(Stencil, TwoDStarSkipsCorners) { AllModes(TwoD(WEFT_STENCIL_STAR)); }

TEST(Stencil, ThreeDAllDimsSharded) {
  // 2x2x2 on 8 ranks (2x2x1 on 4, 1xnx1 otherwise): every dim sharded and windowed.
  for (int32_t stencil : {WEFT_STENCIL_BOX, WEFT_STENCIL_STAR}) {
    Case c;
    c.mesh = Mesh3D();
    c.shape = {5, 4, 3};
    c.placements = {"S0", "S1", "S2"};
    c.type = "float32";
    for (int32_t d = 0; d < 3; ++d) {
      DimSpec x;
      x.dim = d;
      x.lo = x.hi = 1;
      x.pad_lo = x.pad_hi = 1;
      x.rule_lo = d == 0 ? WEFT_BOUNDARY_PERIODIC : WEFT_BOUNDARY_SYMMETRIC;
      x.rule_hi = d == 2 ? WEFT_BOUNDARY_CONSTANT : WEFT_BOUNDARY_REFLECT;
      c.halo.dims.push_back(x);
    }
    c.halo.stencil = stencil;
    AllModes(c);
    ASSERT_FALSE(AnyRankFailed());
  }
}

TEST(InPlace, OwnedCellsNeverWritten) {
  // The interior holds NaNs whose payloads encode the global index: the owned cells must keep
  // their exact bytes, and the neighbours must receive them exactly.
  for (int32_t stencil : {WEFT_STENCIL_BOX, WEFT_STENCIL_STAR}) {
    Case c = TwoD(stencil);
    c.nan_payload = true;
    c.halo.constant = 1.5;
    SCOPED_TRACE(c.Name());
    auto s = MakeSetup(c);
    ASSERT_EQ(s->status, WEFT_OK);
    const DataFn data = FormulaData(s->geo);
    ExchangeAndCheck(*s, data, true);
    ExchangeAndCheck(*s, data, false);
  }
}

TEST(InPlace, EmbeddedPaddedBuffer) {
  // In place on a padded tensor inside a larger buffer: guards around it survive.
  Case c = TwoD(WEFT_STENCIL_STAR);
  c.padded_style = Style::kEmbedded;
  c.type = "int32";
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  ExchangeAndCheck(*s, FormulaData(s->geo), true);
}

}  // namespace
}  // namespace halo
