// Buffers, dtypes and transports: float32, float64, int32, uint8 and bfloat16 through
// column-major and embedded (strided, offset, guarded) local and padded tensors; the forced
// PHASES and NEIGHBOR transports give AUTO's bytes; deterministic accumulate is bitwise
// reproducible from run to run; asynchronous executions through a work handle.
#include <cmath>
#include <cstring>

#include "check.hpp"

namespace halo {
namespace {

// Tensor [8, 6] on the 2-D mesh, both dims windowed one hop (every shard has >= 2 rows, so
// every window reads its direct neighbours only and contains its block).
Case OneHop(int32_t stencil) {
  Case c;
  c.mesh = Mesh2D();
  c.shape = {8, 6};
  c.placements = {"S0", "S1"};
  DimSpec rows, cols;
  rows.dim = 0, cols.dim = 1;
  rows.lo = rows.hi = cols.lo = cols.hi = 1;
  rows.pad_lo = rows.pad_hi = cols.pad_lo = cols.pad_hi = 1;
  rows.rule_lo = WEFT_BOUNDARY_REFLECT, rows.rule_hi = WEFT_BOUNDARY_CONSTANT;
  cols.rule_lo = WEFT_BOUNDARY_SYMMETRIC, cols.rule_hi = WEFT_BOUNDARY_REPLICATE;
  c.halo.dims = {rows, cols};
  c.halo.stencil = stencil;
  return c;
}

TEST(Dtypes, StridedBuffersEveryDtype) {
  const struct {
    Style local, padded;
  } styles[] = {{Style::kColumnMajor, Style::kEmbedded}, {Style::kEmbedded, Style::kColumnMajor}};
  int i = 0;
  for (const char* type : {"float32", "float64", "int32", "uint8", "bfloat16"})
    for (const auto& st : styles) {
      Case c = OneHop(i % 2 ? WEFT_STENCIL_STAR : WEFT_STENCIL_BOX);
      c.shape = {7, 5};  // uneven chunks
      c.type = type;
      c.local_style = st.local, c.padded_style = st.padded;
      c.halo.constant = std::string(type) == "uint8" ? 250 : -3;
      c.halo.dims[1].rule_hi = WEFT_BOUNDARY_PERIODIC;
      SCOPED_TRACE(c.Name());
      auto s = MakeSetup(c);
      ASSERT_EQ(s->status, WEFT_OK);
      const DataFn data = FormulaData(s->geo);
      ExchangeAndCheck(*s, data, false);
      ExchangeAndCheck(*s, data, true);
      // Small gradients and bases: every sum is exact in uint8 and bfloat16.
      AccumulateAndCheck(*s, SmallGrad(uint64_t(i)), 0, data);
      AccumulateAndCheck(*s, SmallGrad(uint64_t(i) + 9), 1, SmallGrad(uint64_t(i) + 99));
      ++i;
      ASSERT_FALSE(AnyRankFailed());
    }
}

TEST(Transports, ForcedTransportsMatchAuto) {
  for (int32_t stencil : {WEFT_STENCIL_BOX, WEFT_STENCIL_STAR}) {
    weft::test::Buffer<char> auto_bytes;
    for (int32_t transport :
         {WEFT_HALO_TRANSPORT_AUTO, WEFT_HALO_TRANSPORT_PHASES, WEFT_HALO_TRANSPORT_NEIGHBOR}) {
      Case c = OneHop(stencil);
      c.type = "float32";
      c.halo.transport = transport;
      SCOPED_TRACE(c.Name());
      auto s = MakeSetup(c);
      ASSERT_EQ(s->status, WEFT_OK);
      CheckWindows(*s);
      const DataFn data = FormulaData(s->geo);
      auto padded = RunExchange(*s, data, false);
      CheckPadded(*s, *padded, data, false);
      if (transport == WEFT_HALO_TRANSPORT_AUTO)
        auto_bytes = padded->mem;
      else
        EXPECT_TRUE(padded->mem == auto_bytes) << "differs from AUTO";
      ExchangeAndCheck(*s, data, true);
      AccumulateAndCheck(*s, SmallGrad(21), 0, data);
      AccumulateAndCheck(*s, SmallGrad(22), 1, data);
      ASSERT_FALSE(AnyRankFailed());
    }
  }
}

// Non-integer gradients whose sums depend on the order of the additions.
DataFn RoughGrad(uint64_t salt) {
  const DataFn small = SmallGrad(salt), more = SmallGrad(salt * 7 + 1);
  return [small, more](int32_t r, const std::vector<int64_t>& g) {
    return small(r, g) / 3.0 + more(r, g) * 1e-9 / 7.0 + 1e5 * (more(r, g) == 2);
  };
}

void Reproducible(const Case& c) {
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  const DataFn y = RoughGrad(77), z = RoughGrad(78);
  for (int32_t add : {0, 1}) {
    auto first = RunAccumulate(*s, y, add, z);
    const std::vector<double> want = ExpectedGrad(*s, y, add, z);
    size_t l = 0;
    ForEachIndex(first->shape, [&](const std::vector<int64_t>& i) {
      const double got = c.type == "float64" ? DecodeF64(first->At(i)) : [&] {
        float f;
        std::memcpy(&f, first->At(i), 4);
        return double(f);
      }();
      EXPECT_NEAR(got, want[l], std::abs(want[l]) * 1e-5 + 1e-6) << "element " << l;
      ++l;
    });
    for (int run = 0; run < 2; ++run) {
      auto again = RunAccumulate(*s, y, add, z);
      EXPECT_TRUE(again->mem == first->mem)
          << "accumulate(add=" << add << ") run " << run + 2 << " differs bitwise from run 1";
    }
  }
}

TEST(Deterministic, AccumulateIsBitwiseReproducible) {
  // Many contributions per element: 1-row shards, lo = hi = 3, periodic wrap on both sides.
  const int64_t k = TheWorld().size;
  std::vector<int64_t> sizes(static_cast<size_t>(k), 1);
  sizes.back() = 3;
  Case c;
  c.mesh = Mesh1D();
  c.shape = {k + 2, 2};
  c.placements = {"S0"};
  c.splits = {sizes};
  DimSpec d;
  d.lo = d.hi = 3;
  d.pad_lo = d.pad_hi = 3;
  d.rule_lo = d.rule_hi = WEFT_BOUNDARY_PERIODIC;
  c.halo.dims = {d};
  c.halo.deterministic = 1;
  Reproducible(c);
  Case two = OneHop(WEFT_STENCIL_BOX);
  two.type = "float32";
  two.halo.deterministic = 1;
  two.halo.dims[0].rule_hi = WEFT_BOUNDARY_PERIODIC;
  Reproducible(two);
}

TEST(Async, ExchangeAndAccumulateWithWork) {
  Case c = OneHop(WEFT_STENCIL_BOX);
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  const DataFn data = FormulaData(s->geo);
  Block local(s->Owned().Extents(), *s->type, Style::kRowMajor);
  ForEachIndex(local.shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> g = i;
    for (size_t d = 0; d < g.size(); ++d) g[d] += s->Owned().begin[d];
    conformance::Encode(*s->type, local.At(i), data(s->me, g));
  });
  Block padded(s->Window().Extents(), *s->type, Style::kRowMajor);
  weft_work_t* work = nullptr;
  WEFT_OK_OR_FAIL(weft_halo_exchange(s->plan.p, &local.t, &padded.t, nullptr, nullptr, &work));
  ASSERT_NE(work, nullptr);
  WEFT_OK_OR_FAIL(weft_work_wait(work, -1));
  WEFT_OK_OR_FAIL(weft_work_release(work));
  CheckPadded(*s, padded, data, false);
  Block grad(s->Owned().Extents(), *s->type, Style::kRowMajor);
  work = nullptr;
  WEFT_OK_OR_FAIL(weft_halo_accumulate(s->plan.p, &padded.t, &grad.t, 0, nullptr, nullptr, &work));
  ASSERT_NE(work, nullptr);
  WEFT_OK_OR_FAIL(weft_work_wait(work, -1));
  WEFT_OK_OR_FAIL(weft_work_release(work));
  // accumulate(exchange(x)) with padded holding the exchanged data as gradient.
  CheckGrad(
      *s, grad,
      [&](int32_t r, const std::vector<int64_t>& g) {
        const Cell cell = ExpectedCell(s->geo, r, g);
        return cell.kind == CellKind::kData       ? data(r, cell.src)
               : cell.kind == CellKind::kConstant ? s->geo.constant
                                                  : 0.0;
      },
      0, data);
}

}  // namespace
}  // namespace halo
