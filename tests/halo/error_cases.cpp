// Errors (SPEC §4, §6.4): every bad descriptor fails at plan creation with
// WEFT_ERR_INVALID_ARGUMENT and the same message on every rank, writes no plan, and leaves
// nobody mid-communication (a normal exchange right after still works); the in-place exchange
// is refused on every rank when one window misses its owned range; PHASES is refused at plan
// time where it cannot serve the windows; a halo plan does not run as a redistribute.
#include <cstring>

#include "check.hpp"

namespace halo {
namespace {

// Tensor [2k+2, 3] on the 1-D mesh, rows windowed lo = hi = 1 with 1 row of constant padding.
Case Base() {
  Case c;
  c.mesh = Mesh1D();
  c.shape = {2 * int64_t{TheWorld().size} + 2, 3};
  c.placements = {"S0"};
  DimSpec d;
  d.lo = d.hi = 1;
  d.pad_lo = d.pad_hi = 1;
  c.halo.dims = {d};
  return c;
}

// The uniform windows of the base case, as an explicit table.
std::vector<int64_t> BaseWindows() {
  auto s = MakeSetup(Base());
  std::vector<int64_t> w;
  for (const Box& b : s->geo.window) w.insert(w.end(), {b.begin[0], b.end[0]});
  return w;
}

void NormalExchangeWorks() {
  auto s = MakeSetup(Base());
  ASSERT_EQ(s->status, WEFT_OK);
  ExchangeAndCheck(*s, FormulaData(s->geo));
}

// Plan creation from desc must fail alike everywhere; then the world still works.
void ExpectPlanError(const Case& c, const weft_halo_desc_t& desc, const std::string& what) {
  SCOPED_TRACE(what);
  Mesh mesh(c.mesh);
  Layout layout(mesh, c.shape, TypeNamed(c.type).dl, c.placements, c.splits);
  weft_plan_t* plan = nullptr;
  const weft_status_t st = weft_halo_plan_create(layout.l, &desc, nullptr, &plan);
  EXPECT_EQ(st, WEFT_ERR_INVALID_ARGUMENT) << weft_last_error();
  const std::string msg = weft_last_error();
  if (st == WEFT_OK) weft_plan_destroy(plan);
  EXPECT_EQ(plan, nullptr) << "plan written on failure";
  EXPECT_FALSE(msg.empty()) << "no weft_last_error";
  EXPECT_EQ(AllMin(st), AllMax(st)) << "ranks disagree on the status";
  EXPECT_TRUE(SameOnAllRanks(msg)) << "ranks disagree on the message: " << msg;
  NormalExchangeWorks();
}

void ExpectPlanError(const Case& c, const std::string& what) {
  std::vector<weft_halo_dim_t> dims;
  ExpectPlanError(c, MakeDesc(c.halo, &dims), what);
}

TEST(PlanErrors, BadWindowsAndRules) {
  const int64_t n = Base().shape[0];
  {
    Case c = Base();
    c.halo.dims[0].windows = BaseWindows();
    c.halo.dims[0].windows.back() = n + 2;  // end past N + pad_hi
    ExpectPlanError(c, "explicit window past N + pad_hi");
    c.halo.dims[0].windows = BaseWindows();
    c.halo.dims[0].windows.front() = -2;  // begin below -pad_lo
    ExpectPlanError(c, "explicit window below -pad_lo");
    c.halo.dims[0].windows = BaseWindows();
    std::swap(c.halo.dims[0].windows[0], c.halo.dims[0].windows[1]);  // begin > end
    ExpectPlanError(c, "explicit window with begin > end");
  }
  const struct {
    int32_t rule;
    int64_t pad_lo, pad_hi;
    const char* what;
  } rules[] = {{WEFT_BOUNDARY_NONE, 1, 0, "rule NONE with pad_lo > 0"},
               {WEFT_BOUNDARY_NONE, 0, 2, "rule NONE with pad_hi > 0"},
               {WEFT_BOUNDARY_REFLECT, n, 0, "reflect overhang N > N-1"},
               {WEFT_BOUNDARY_REFLECT, 0, n, "reflect overhang N > N-1 (high)"},
               {WEFT_BOUNDARY_SYMMETRIC, n + 1, 0, "symmetric overhang N+1 > N"},
               {WEFT_BOUNDARY_PERIODIC, 0, n + 1, "periodic overhang N+1 > N"},
               {WEFT_BOUNDARY_PERIODIC, n + 3, 1, "periodic overhang N+3 > N"}};
  for (const auto& r : rules) {
    Case c = Base();
    c.halo.dims[0].rule_lo = c.halo.dims[0].rule_hi = r.rule;
    c.halo.dims[0].pad_lo = r.pad_lo, c.halo.dims[0].pad_hi = r.pad_hi;
    ExpectPlanError(c, r.what);
  }
}

TEST(PlanErrors, BadDescriptorFields) {
  const Case base = Base();
  auto with = [&](auto&& edit, const char* what) {
    Case c = base;
    edit(c);
    ExpectPlanError(c, what);
  };
  with([](Case& c) { c.halo.dims.push_back(c.halo.dims[0]); }, "duplicated dim");
  with([](Case& c) { c.halo.dims[0].dim = 2; }, "dim out of range");
  with([](Case& c) { c.halo.dims[0].dim = -1; }, "negative dim");
  with([](Case& c) { c.halo.dims[0].rule_lo = 6; }, "unknown boundary code 6");
  with([](Case& c) { c.halo.dims[0].rule_hi = -1; }, "unknown boundary code -1");
  with([](Case& c) { c.halo.dims[0].lo = -1; }, "negative lo");
  with([](Case& c) { c.halo.dims[0].pad_hi = -1; }, "negative pad_hi");
  with([](Case& c) { c.halo.stencil = 2; }, "unknown stencil");
  with([](Case& c) { c.halo.transport = 3; }, "unknown transport");
  with([](Case& c) { c.halo.dims.clear(); }, "no dims");

  std::vector<weft_halo_dim_t> dims;
  weft_halo_desc_t desc = MakeDesc(base.halo, &dims);
  desc.struct_size = 0;
  ExpectPlanError(base, desc, "struct_size 0");
  desc = MakeDesc(base.halo, &dims);
  desc.reserved = 1;
  ExpectPlanError(base, desc, "desc reserved != 0");
  desc = MakeDesc(base.halo, &dims);
  dims[0].reserved = 1;
  ExpectPlanError(base, desc, "dim reserved != 0");
  desc = MakeDesc(base.halo, &dims);
  desc.dims = nullptr;
  ExpectPlanError(base, desc, "dims NULL");

  // A newer caller's larger struct: accepted only when the unknown tail is zero.
  struct Bigger {
    weft_halo_desc_t d;
    uint64_t tail;
  } big{MakeDesc(base.halo, &dims), 1};
  big.d.struct_size = sizeof(Bigger);
  ExpectPlanError(base, big.d, "larger struct_size with a non-zero tail");
  big.tail = 0;
  Mesh mesh(base.mesh);
  Layout layout(mesh, base.shape, TypeNamed(base.type).dl, base.placements);
  Plan plan;
  EXPECT_EQ(weft_halo_plan_create(layout.l, &big.d, nullptr, &plan.p), WEFT_OK)
      << "larger struct_size with a zero tail: " << weft_last_error();
}

// Explicit windows of the base case where the last non-empty rank's window misses the last
// row of its block (the other windows are the uniform ones).
Case ShrunkLastWindow() {
  Case c = Base();
  auto s = MakeSetup(c);
  std::vector<int64_t>& w = c.halo.dims[0].windows;
  for (const Box& b : s->geo.window) w.insert(w.end(), {b.begin[0], b.end[0]});
  for (size_t r = s->geo.owned.size(); r-- > 0;) {
    const Box& own = s->geo.owned[r];
    if (own.end[0] == own.begin[0]) continue;
    w[2 * r + 1] = own.end[0] - 1;
    break;
  }
  return c;
}

TEST(InPlaceErrors, RefusedOnEveryRankWhenAWindowMissesItsBlock) {
  Case c = ShrunkLastWindow();
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  Block padded(s->Window().Extents(), *s->type, Style::kRowMajor);
  const weft_status_t st =
      weft_halo_exchange_inplace(s->plan.p, &padded.t, nullptr, nullptr, nullptr);
  EXPECT_EQ(st, WEFT_ERR_INVALID_USAGE) << weft_last_error();
  EXPECT_NE(std::strlen(weft_last_error()), 0u);
  EXPECT_EQ(AllMin(st), AllMax(st)) << "ranks disagree";
  EXPECT_EQ(padded.DamagedGuardBytes(), 0);
  // The same plan still exchanges out of place (windows smaller than the block included).
  CheckWindows(*s);
  ExchangeAndCheck(*s, FormulaData(s->geo));
  AccumulateAndCheck(*s, SmallGrad(3), 1, FormulaData(s->geo));
}

TEST(TransportErrors, PhasesRefusedWhereItCannotServe) {
  // Tensor [5, 2k] on mesh 1 x k, columns sharded; rows windowed too (phase 0), with windows
  // that differ between column neighbours: odd positions [0, 5), even ones [1, 5). In the
  // column phase an odd position needs row 0 of its neighbours' columns, which the even
  // neighbour never holds: no dimension phases can serve it.
  const int64_t k = TheWorld().size;
  if (k < 2) return;  // (one position has no neighbour: nothing to forward)
  Case c;
  c.mesh = {1, k};
  c.shape = {5, 2 * k};
  c.placements = {"R", "S1"};
  DimSpec rows, cols;
  rows.rule_lo = rows.rule_hi = WEFT_BOUNDARY_NONE;
  for (int64_t p = 0; p < k; ++p) rows.windows.insert(rows.windows.end(), {p % 2 ? 0 : 1, 5});
  cols.dim = 1;
  cols.lo = cols.hi = cols.pad_lo = cols.pad_hi = 1;
  c.halo.dims = {rows, cols};
  c.halo.transport = WEFT_HALO_TRANSPORT_PHASES;
  ExpectPlanError(c, "PHASES with neighbours holding different rows");
  c.halo.transport = WEFT_HALO_TRANSPORT_NEIGHBOR;  // which serves any windows
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  ExchangeAndCheck(*s, FormulaData(s->geo));
}

// Windows PHASES serves although they are not one-hop or do not contain their owned range: a
// 1-D plan is a single phase, which reads only owned rows (halo.h: PHASES is refused only where
// forwarding would read rows a neighbour does not hold). Served exactly on every rank.
void PhasesServesExactly(Case c, const std::string& what) {
  SCOPED_TRACE(what);
  c.halo.transport = WEFT_HALO_TRANSPORT_PHASES;
  auto s = MakeSetup(c, false);
  ASSERT_EQ(AllMin(s->status), WEFT_OK) << weft_last_error();
  ASSERT_EQ(AllMax(s->status), WEFT_OK);
  CheckWindows(*s);
  ExchangeAndCheck(*s, FormulaData(s->geo));
  AccumulateAndCheck(*s, SmallGrad(4), 0, FormulaData(s->geo));
}

TEST(TransportErrors, PhasesOnOneDimWindows) {
  PhasesServesExactly(ShrunkLastWindow(), "a window missing its owned range");
  Case m = Base();
  m.shape = {TheWorld().size, 2};  // 1-row shards, lo = hi = 3: several hops
  m.halo.dims[0].lo = m.halo.dims[0].hi = 3;
  PhasesServesExactly(m, "multi-hop windows");
}

TEST(PlanErrors, HaloPlanIsNotARedistribute) {
  auto s = MakeSetup(Base());
  ASSERT_EQ(s->status, WEFT_OK);
  Block local(s->Owned().Extents(), *s->type, Style::kRowMajor);
  Block out(s->Owned().Extents(), *s->type, Style::kRowMajor);
  EXPECT_EQ(weft_plan_execute(s->plan.p, &local.t, &out.t, nullptr, nullptr, nullptr),
            WEFT_ERR_INVALID_USAGE);
  size_t needed = 0;
  EXPECT_EQ(weft_plan_describe(s->plan.p, nullptr, 0, &needed), WEFT_OK);
  EXPECT_GT(needed, 0u);
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  EXPECT_EQ(weft_plan_stats(s->plan.p, &stats), WEFT_OK) << weft_last_error();
  NormalExchangeWorks();
}

TEST(DeriveErrors, BadOperators) {
  Case c = Base();
  Mesh mesh(c.mesh);
  Layout layout(mesh, c.shape, TypeNamed(c.type).dl, c.placements);
  const int32_t k = TheWorld().size;
  std::vector<int64_t> windows(2 * static_cast<size_t>(k)), sizes(static_cast<size_t>(k));
  int64_t extent = 0;
  auto derive = [&](weft_window_op_t op, int32_t npieces) {
    return weft_halo_derive_windows(layout.l, 0, &op, windows.data(), npieces, sizes.data(),
                                    &extent);
  };
  weft_window_op_t op = WEFT_WINDOW_OP_INIT;
  op.kernel = 3;
  ASSERT_EQ(derive(op, k), WEFT_OK) << weft_last_error();
  const struct {
    int64_t weft_window_op_t::*field;
    int64_t value;
    const char* what;
  } bad[] = {{&weft_window_op_t::kernel, 0, "kernel 0"},
             {&weft_window_op_t::stride, 0, "stride 0"},
             {&weft_window_op_t::dilation, 0, "dilation 0"},
             {&weft_window_op_t::pad_lo, -1, "negative pad_lo"},
             {&weft_window_op_t::kernel, 100, "no output rows"}};
  for (const auto& b : bad) {
    weft_window_op_t o = op;
    o.*b.field = b.value;
    EXPECT_EQ(derive(o, k), WEFT_ERR_INVALID_ARGUMENT) << b.what;
    EXPECT_NE(std::strlen(weft_last_error()), 0u) << b.what;
  }
  EXPECT_EQ(derive(op, k + 1), WEFT_ERR_INVALID_ARGUMENT) << "npieces mismatch";
  weft_window_op_t o = op;
  o.kind = 99;
  EXPECT_EQ(derive(o, k), WEFT_ERR_INVALID_ARGUMENT) << "unknown kind";
}

}  // namespace
}  // namespace halo
