// Cross-mesh redistribute: a tensor moves between two meshes of the world (disjoint pipeline
// stages, or overlapping sub-meshes). Ranks outside the source mesh pass in = NULL, ranks
// outside the destination mesh out = NULL; every destination element is checked against the
// formula, and on disjoint meshes each destination rank receives its block exactly once.
#include <algorithm>
#include <memory>

#include "harness.hpp"

namespace redist {
namespace {

struct CrossSpec {
  std::vector<int64_t> src_shape, dst_shape;  // mesh shapes
  std::vector<int32_t> src_ranks, dst_ranks;
  std::vector<std::string> src, dst;
  std::vector<int64_t> shape;
  std::string type = "float32";
  bool one_shot = false;
};

bool Has(const std::vector<int32_t>& v, int32_t r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

void RunCross(const CrossSpec& s) {
  World& w = TheWorld();
  std::string what = s.type + " ";
  for (const auto& p : s.src) what += p;
  what += " on {";
  for (int32_t r : s.src_ranks) what += std::to_string(r) + ",";
  what += "} -> ";
  for (const auto& p : s.dst) what += p;
  what += " on {";
  for (int32_t r : s.dst_ranks) what += std::to_string(r) + ",";
  what += "}";
  SCOPED_TRACE(what);
  const Type& t = TypeNamed(s.type);
  Mesh ma(s.src_shape, s.src_ranks), mb(s.dst_shape, s.dst_ranks);
  Layout src(ma, s.shape, t.dl, s.src), dst(mb, s.shape, t.dl, s.dst);
  ASSERT_EQ(src.status, WEFT_OK) << weft_last_error();
  ASSERT_EQ(dst.status, WEFT_OK) << weft_last_error();
  const bool in_a = Has(s.src_ranks, w.rank), in_b = Has(s.dst_ranks, w.rank);
  Plan plan;
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p));
  weft_plan_stats_t st = WEFT_PLAN_STATS_INIT;
  WEFT_OK_OR_FAIL(weft_plan_stats(plan.p, &st));
  bool partial_dst = false, partial_src = false;
  for (const auto& p : s.dst) partial_dst = partial_dst || p[0] == 'P';
  for (const auto& p : s.src) partial_src = partial_src || p[0] == 'P';
  bool disjoint = true;
  for (int32_t r : s.src_ranks) disjoint = disjoint && !Has(s.dst_ranks, r);
  if (disjoint && !partial_src) {
    // Exactly one copy of each destination element arrives; source-only ranks receive nothing.
    int64_t want = 0;
    if (in_b) {
      Local probe(dst, t, w.rank);
      want = probe.numel() * t.bytes();
    }
    EXPECT_EQ(st.recv_bytes, want);
  }
  for (int iter = 0; iter < 2; ++iter) {
    std::unique_ptr<Local> in, out;
    if (in_a) {
      in = std::make_unique<Local>(src, t, w.rank, iter == 1, iter == 1 ? 8 : 0);
      Fill(*in, src, t, ma, s.shape, iter);
    }
    if (in_b) out = std::make_unique<Local>(dst, t, w.rank, iter == 1);
    const DLTensor* pi = in ? &in->t : nullptr;
    DLTensor* po = out ? &out->t : nullptr;
    if (s.one_shot)
      WEFT_OK_OR_FAIL(weft_redistribute(src.l, pi, dst.l, po, nullptr, nullptr, nullptr));
    else
      WEFT_OK_OR_FAIL(weft_plan_execute(plan.p, pi, po, nullptr, nullptr, nullptr));
    if (!partial_dst) {
      if (out) Check(*out, t, s.shape, iter, what);
      continue;
    }
    // A Partial destination: reduce it on the destination mesh and check the value.
    std::vector<std::string> reduced = s.dst;
    for (auto& p : reduced)
      if (p[0] == 'P') p = "R";
    Layout full(mb, s.shape, t.dl, reduced);
    std::unique_ptr<Local> back;
    if (in_b) back = std::make_unique<Local>(full, t, w.rank);
    WEFT_OK_OR_FAIL(weft_redistribute(dst.l, out ? &out->t : nullptr, full.l,
                                      back ? &back->t : nullptr, nullptr, nullptr, nullptr));
    if (back) Check(*back, t, s.shape, iter, what + " (reduced)");
  }
}

TEST(CrossMeshFour, DisjointStages) {
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs = {
      {{"S0"}, {"S0"}}, {{"S0"}, {"S1"}}, {{"R"}, {"S0"}}, {{"S1"}, {"R"}}};
  for (const auto& [a, b] : pairs) RunCross({{2}, {2}, {0, 1}, {2, 3}, a, b, {5, 7}});
  // A source Partial is reduced on the source mesh first; a Partial destination is made
  // locally after the exchange.
  RunCross({{2}, {2}, {0, 1}, {2, 3}, {"Ps"}, {"S1"}, {6, 3}, "int32"});
  RunCross({{2}, {2}, {0, 1}, {2, 3}, {"S0"}, {"Ps"}, {4, 3}, "float64"});
  RunCross({{2}, {2}, {0, 1}, {2, 3}, {"Pm"}, {"Pm"}, {3, 3}, "int16"});
  // Back the other way, one-shot (cached plan), another dtype.
  RunCross({{2}, {2}, {2, 3}, {0, 1}, {"S0"}, {"S1"}, {3, 5}, "uint8", true});
}

TEST(CrossMeshFour, OverlappingMeshes) {
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs = {
      {{"S0"}, {"S0"}}, {{"R"}, {"S1"}}, {{"S1"}, {"R"}}, {{"S0"}, {"S1"}}};
  for (const auto& [a, b] : pairs)
    RunCross({{3}, {3}, {0, 1, 2}, {1, 2, 3}, a, b, {7, 4}, "bfloat16"});
  // Two source ranks listed in another order than their world ranks.
  RunCross({{2}, {3}, {3, 1}, {0, 1, 2}, {"S0"}, {"S1"}, {5, 5}});
}

TEST(CrossMeshFour, UnrelatedLayouts) {
  Mesh ma({2}, {0, 1}), mb({2}, {2, 3});
  const DLDataType f32 = TypeNamed("float32").dl;
  Layout a(ma, {4, 4}, f32, {"S0"}), b(mb, {4, 5}, f32, {"S0"}),
      c(mb, {4, 4}, TypeNamed("int32").dl, {"S0"});
  Plan plan;
  EXPECT_EQ(weft_redistribute_plan_create(a.l, b.l, nullptr, &plan.p), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(weft_redistribute_plan_create(a.l, c.l, nullptr, &plan.p), WEFT_ERR_INVALID_ARGUMENT);
  // Batched plans stay on one mesh.
  const weft_layout_t* srcs[1] = {a.l};
  const weft_layout_t* dsts[1] = {a.l};
  Layout d(mb, {4, 4}, f32, {"R"});
  dsts[0] = d.l;
  EXPECT_EQ(weft_redistribute_plan_create_n(1, srcs, dsts, nullptr, &plan.p),
            WEFT_ERR_INVALID_ARGUMENT);
}

TEST(CrossMeshEight, Stage2x2To2x2) {
  const std::vector<int32_t> a = {0, 1, 2, 3}, b = {4, 5, 6, 7};
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs = {
      {{"S0", "S1"}, {"S0", "S1"}},
      {{"S0", "S1"}, {"S1", "S0"}},
      {{"R", "S0"}, {"S0", "R"}},
      {{"Ps", "S0"}, {"S1", "R"}}};
  for (const auto& [x, y] : pairs) RunCross({{2, 2}, {2, 2}, a, b, x, y, {6, 5}});
}

}  // namespace
}  // namespace redist
