// Partial(avg) conjugates (SPEC §2.4): R -> P(avg) leaves x on every rank, for every float
// dtype, through a plan, the one-shot call and across meshes; P(avg) -> R then gives x back
// bit for bit. The values use full mantissas, so that for types of 32 bits or fewer (complex64
// included) the float64 accumulation is what keeps the round trip exact. For float64 and
// complex128 SPEC §2.4 promises a correctly rounded sum/k of a float64 sum, and k copies of a
// full-mantissa x need not sum exactly (3x rounds): their round trip uses values whose
// multiples are exact, while R -> P(avg) alone is checked with full mantissas too.
// Partial(avg) on integers and bool is rejected when the layout is made, and S -> P(avg) is
// an error on every mesh dim, extent 1 included (SPEC §3.1).
#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>

#include "harness.hpp"
#include "tests/support/device_buffers.hpp"

namespace redist {
namespace {

// Whether the type's lanes are float64, where a sum of equal terms may round.
bool WideLanes(const Type& t) { return t.dl.bits == (t.is_complex ? 128 : 64); }

// x at global linear index L (real and imaginary parts), rounded to the type by Encode.
// `exact`: values of at most 20 significant bits, whose sums of equal terms are exact.
std::vector<char> X(const Type& t, int64_t L, bool exact) {
  if (exact) {
    return conformance::EncodeOne(t, double(L % 97) * 0.75 + 1.0 / 1024,
                                  double(L % 7) * -1.25 - 1.0 / 512);
  }
  const double re = 1.0 / 3.0 + double(L % 97) * 0.7071067811865476 - double(L % 5) * 1.1;
  const double im = 2.718281828459045 / double(1 + L % 7) - 0.1 * double(L);
  return conformance::EncodeOne(t, re, im);
}

// Calls fn(element address, global linear index) over a block filled or to be checked.
template <class Fn>
void ForEachElement(Local& b, const std::vector<int64_t>& global, Fn&& fn) {
  const size_t nd = b.shape.size();
  if (b.numel() == 0) return;
  std::vector<int64_t> idx(nd, 0);
  while (true) {
    int64_t L = 0;
    for (size_t d = 0; d < nd; ++d) L = L * global[d] + b.offset[d] + idx[d];
    fn(b.At(idx), L);
    size_t d = nd;
    while (d > 0 && ++idx[d - 1] == b.shape[d - 1]) idx[--d] = 0;
    if (d == 0) return;
  }
}

void FillX(Local& b, const Type& t, const std::vector<int64_t>& global, bool exact) {
  ForEachElement(b, global, [&](char* p, int64_t L) {
    const std::vector<char> x = X(t, L, exact);
    std::memcpy(p, x.data(), x.size());
  });
}

void ExpectX(Local& b, const Type& t, const std::vector<int64_t>& global, bool exact,
             const std::string& what) {
  weft::test::SyncDevice();  // device buffers: what was enqueued has run
  int64_t bad = 0;
  ForEachElement(b, global, [&](char* p, int64_t L) {
    const std::vector<char> x = X(t, L, exact);
    if (std::memcmp(p, x.data(), x.size()) != 0 && bad++ < 3)
      ADD_FAILURE() << what << ": rank " << TheWorld().rank << " element " << L
                    << " is not x bit for bit";
  });
  EXPECT_EQ(bad, 0) << what;
}

std::vector<const Type*> FloatTypes() {
  std::vector<const Type*> out;
  for (const Type& t : conformance::AllTypes())
    if (t.is_float) out.push_back(&t);  // float16, bfloat16, float32, float64, complex
  return out;
}

// r -> a (a holds P(avg) where r holds R), checked to be x everywhere, then a -> r, checked
// again (not for full-mantissa float64 lanes: see the top). One plan per direction, or the
// one-shot call.
void RoundTrip(const Mesh& mesh, const std::vector<int64_t>& shape, const Type& t,
               const std::vector<std::string>& r, const std::vector<std::string>& a, bool one_shot,
               bool exact) {
  World& w = TheWorld();
  std::string what = std::string(t.name) + (one_shot ? " one-shot " : " plan ") +
                     (exact ? "(exactly summable x) " : "");
  for (const auto& p : r) what += p + " ";
  what += "->";
  for (const auto& p : a) what += " " + p;
  SCOPED_TRACE(what);
  Layout lr(mesh, shape, t.dl, r), la(mesh, shape, t.dl, a);
  ASSERT_EQ(lr.status, WEFT_OK) << weft_last_error();
  ASSERT_EQ(la.status, WEFT_OK) << weft_last_error();
  Local in(lr, t, w.rank), mid(la, t, w.rank, /*transposed=*/true), back(lr, t, w.rank);
  FillX(in, t, shape, exact);
  if (one_shot) {
    WEFT_OK_OR_FAIL(weft_redistribute(lr.l, &in.t, la.l, &mid.t, nullptr, nullptr, nullptr));
  } else {
    Plan there;
    WEFT_OK_OR_FAIL(weft_redistribute_plan_create(lr.l, la.l, nullptr, &there.p));
    WEFT_OK_OR_FAIL(weft_plan_execute(there.p, &in.t, &mid.t, nullptr, nullptr, nullptr));
  }
  ExpectX(mid, t, shape, exact, what + " (every rank keeps x)");
  if (WideLanes(t) && !exact) return;
  if (one_shot) {
    WEFT_OK_OR_FAIL(weft_redistribute(la.l, &mid.t, lr.l, &back.t, nullptr, nullptr, nullptr));
  } else {
    Plan home;
    WEFT_OK_OR_FAIL(weft_redistribute_plan_create(la.l, lr.l, nullptr, &home.p));
    WEFT_OK_OR_FAIL(weft_plan_execute(home.p, &mid.t, &back.t, nullptr, nullptr, nullptr));
  }
  ExpectX(back, t, shape, exact, what + " and back");
}

TEST(AvgConjugate, ReplicateToAvgKeepsXOnEveryFloatDtype) {
  const int64_t n = TheWorld().size;
  Mesh line({n});
  for (const Type* t : FloatTypes()) {
    for (const bool one_shot : {false, true}) {
      RoundTrip(line, {n + 2, 3}, *t, {"R"}, {"Pa"}, one_shot, false);
      if (WideLanes(*t)) RoundTrip(line, {n + 2, 3}, *t, {"R"}, {"Pa"}, one_shot, true);
    }
  }
  if (n != 4) return;
  Mesh square({2, 2});
  for (const Type* t : FloatTypes()) {
    RoundTrip(square, {5, 3}, *t, {"R", "S1"}, {"Pa", "S1"}, false, WideLanes(*t));
    RoundTrip(square, {5, 3}, *t, {"S0", "R"}, {"S0", "Pa"}, true, WideLanes(*t));
  }
}

TEST(AvgConjugate, IntegerAvgAndShardToAvgAreRejected) {
  const int64_t n = TheWorld().size;
  Mesh line({n});
  for (const Type& t : conformance::AllTypes()) {
    if (t.is_float) continue;
    Layout bad(line, {n, 2}, t.dl, {"Pa"});
    EXPECT_EQ(bad.status, WEFT_ERR_INVALID_ARGUMENT) << t.name;
    EXPECT_NE(std::string(weft_last_error()).find("P(avg)"), std::string::npos)
        << weft_last_error();
  }
  // S -> P(avg): an error on every rank alike, on a mesh dim of any extent (n may be 1).
  Mesh wide({1, n});
  const Type& f32 = TypeNamed("float32");
  const std::vector<std::tuple<const Mesh*, std::vector<std::string>, std::vector<std::string>>>
      pairs = {{&line, {"S0"}, {"Pa"}}, {&wide, {"S0", "R"}, {"Pa", "R"}}};
  for (const auto& [mesh, src, dst] : pairs) {
    Layout a(*mesh, {n, 2}, f32.dl, src), b(*mesh, {n, 2}, f32.dl, dst);
    ASSERT_EQ(a.status, WEFT_OK) << weft_last_error();
    ASSERT_EQ(b.status, WEFT_OK) << weft_last_error();
    Plan plan;
    EXPECT_EQ(weft_redistribute_plan_create(a.l, b.l, nullptr, &plan.p), WEFT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(weft_last_error()).find("S(0) -> P(avg)"), std::string::npos)
        << weft_last_error();
    Local in(a, f32, TheWorld().rank), out(b, f32, TheWorld().rank);
    EXPECT_EQ(weft_redistribute(a.l, &in.t, b.l, &out.t, nullptr, nullptr, nullptr),
              WEFT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(weft_last_error()).find("S(0) -> P(avg)"), std::string::npos)
        << weft_last_error();
  }
}

bool Has(const std::vector<int32_t>& v, int32_t r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

// A tensor moves from `src` on ranks `ra` to P(avg) on ranks `rb`: every destination rank
// holds x; reduced on the destination mesh it is x again.
void CrossToAvg(const std::vector<int32_t>& ra, const std::vector<int32_t>& rb, const Type& t,
                const std::string& src, bool one_shot) {
  World& w = TheWorld();
  const std::vector<int64_t> shape = {7, 3};
  const std::string what =
      std::string(t.name) + " " + src + " -> Pa across meshes" + (one_shot ? " (one-shot)" : "");
  SCOPED_TRACE(what);
  Mesh ma({static_cast<int64_t>(ra.size())}, ra), mb({static_cast<int64_t>(rb.size())}, rb);
  Layout ls(ma, shape, t.dl, {src}), la(mb, shape, t.dl, {"Pa"}), lr(mb, shape, t.dl, {"R"});
  ASSERT_EQ(ls.status, WEFT_OK) << weft_last_error();
  std::unique_ptr<Local> in, mid, back;
  const bool exact = WideLanes(t);  // reduced below: see the top
  if (Has(ra, w.rank)) {
    in = std::make_unique<Local>(ls, t, w.rank);
    FillX(*in, t, shape, exact);
  }
  if (Has(rb, w.rank)) {
    mid = std::make_unique<Local>(la, t, w.rank);
    back = std::make_unique<Local>(lr, t, w.rank);
  }
  const DLTensor* pi = in ? &in->t : nullptr;
  DLTensor* pm = mid ? &mid->t : nullptr;
  if (one_shot) {
    WEFT_OK_OR_FAIL(weft_redistribute(ls.l, pi, la.l, pm, nullptr, nullptr, nullptr));
  } else {
    Plan plan;
    WEFT_OK_OR_FAIL(weft_redistribute_plan_create(ls.l, la.l, nullptr, &plan.p));
    WEFT_OK_OR_FAIL(weft_plan_execute(plan.p, pi, pm, nullptr, nullptr, nullptr));
  }
  if (mid) ExpectX(*mid, t, shape, exact, what + " (every rank keeps x)");
  WEFT_OK_OR_FAIL(
      weft_redistribute(la.l, pm, lr.l, back ? &back->t : nullptr, nullptr, nullptr, nullptr));
  if (back) ExpectX(*back, t, shape, exact, what + " and reduced");
}

TEST(CrossMeshAvg, ReplicateOrShardToAvgKeepsX) {
  const int32_t n = TheWorld().size;
  std::vector<int32_t> low, high, all_but_last, all_but_first;
  for (int32_t r = 0; r < n; ++r) {
    (r < n / 2 ? low : high).push_back(r);
    if (r + 1 < n) all_but_last.push_back(r);
    if (r > 0) all_but_first.push_back(r);
  }
  for (const Type* t : FloatTypes()) {
    CrossToAvg(low, high, *t, "R", false);  // disjoint stages
    CrossToAvg(low, high, *t, "S0", true);
    if (n >= 3) CrossToAvg(all_but_last, all_but_first, *t, "R", t->dl.bits == 32);  // overlap
  }
}

}  // namespace
}  // namespace redist
