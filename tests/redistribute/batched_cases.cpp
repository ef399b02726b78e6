// Batched plans (weft_redistribute_plan_create_n / weft_plan_execute_n): three tensors of
// different shapes and dtypes in one plan, every element checked against the formula, and
// the plan's stats showing whether the steps were fused (one collective per step) or not.
#include <memory>

#include "harness.hpp"

namespace redist {
namespace {

struct Tensor {
  std::string type;
  std::vector<int64_t> shape;
  std::vector<std::string> src, dst;
};

weft_plan_stats_t StatsOf(weft_plan_t* p) {
  weft_plan_stats_t s = WEFT_PLAN_STATS_INIT;
  EXPECT_EQ(weft_plan_stats(p, &s), WEFT_OK) << weft_last_error();
  return s;
}

std::string DescribeOf(weft_plan_t* p) {
  size_t needed = 0;
  weft_plan_describe(p, nullptr, 0, &needed);
  std::string text(needed, '\0');
  EXPECT_EQ(weft_plan_describe(p, text.data(), text.size(), &needed), WEFT_OK);
  text.resize(needed > 0 ? needed - 1 : 0);  // drop the terminating NUL
  return text;
}

// Runs the batch twice (different values each time) and checks every destination element;
// `fused`: whether the pairs share one step structure, as the test expects it.
void RunBatch(const std::vector<int64_t>& mesh_shape, const std::vector<Tensor>& ts, bool fused) {
  World& w = TheWorld();
  std::string what = "batch of " + std::to_string(ts.size()) + ":";
  for (const Tensor& t : ts) {
    what += " " + t.type + " ";
    for (const auto& p : t.src) what += p;
    what += "->";
    for (const auto& p : t.dst) what += p;
  }
  SCOPED_TRACE(what);
  Mesh mesh(mesh_shape);
  std::vector<std::unique_ptr<Layout>> src, dst;
  std::vector<const weft_layout_t*> srcs, dsts;
  for (const Tensor& t : ts) {
    src.push_back(std::make_unique<Layout>(mesh, t.shape, TypeNamed(t.type).dl, t.src));
    dst.push_back(std::make_unique<Layout>(mesh, t.shape, TypeNamed(t.type).dl, t.dst));
    ASSERT_EQ(src.back()->status, WEFT_OK) << weft_last_error();
    ASSERT_EQ(dst.back()->status, WEFT_OK) << weft_last_error();
    srcs.push_back(src.back()->l);
    dsts.push_back(dst.back()->l);
  }
  const auto n = static_cast<int32_t>(ts.size());
  Plan plan;
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create_n(n, srcs.data(), dsts.data(), nullptr, &plan.p));

  // Independent expectation: the single plans' numbers.
  int64_t steps_sum = 0, steps_first = -1, send = 0, recv = 0;
  for (int32_t i = 0; i < n; ++i) {
    Plan one;
    WEFT_OK_OR_FAIL(weft_redistribute_plan_create(srcs[i], dsts[i], nullptr, &one.p));
    const weft_plan_stats_t s = StatsOf(one.p);
    steps_sum += s.steps;
    if (steps_first < 0) steps_first = s.steps;
    send += s.send_bytes;
    recv += s.recv_bytes;
  }
  const weft_plan_stats_t bs = StatsOf(plan.p);
  EXPECT_EQ(bs.steps, fused ? steps_first : steps_sum);
  EXPECT_EQ(bs.send_bytes, send);
  EXPECT_EQ(bs.recv_bytes, recv);
  const std::string text = DescribeOf(plan.p);
  EXPECT_NE(text.find(fused ? "fused (one collective" : "not fused"), std::string::npos) << text;

  for (int iter = 0; iter < 2; ++iter) {
    std::vector<std::unique_ptr<Local>> in, out;
    std::vector<const DLTensor*> ins;
    std::vector<DLTensor*> outs;
    for (int32_t i = 0; i < n; ++i) {
      const Type& t = TypeNamed(ts[i].type);
      // Tensor 1 uses strided (transposed) buffers: the fused path packs them like the rest.
      in.push_back(std::make_unique<Local>(*src[i], t, w.rank, i == 1, i == 1 ? 8 : 0));
      out.push_back(std::make_unique<Local>(*dst[i], t, w.rank, i == 1));
      Fill(*in.back(), *src[i], t, mesh, ts[i].shape, iter + i);
      ins.push_back(&in.back()->t);
      outs.push_back(&out.back()->t);
    }
    // The second execution is asynchronous (work).
    weft_work_t* work = nullptr;
    WEFT_OK_OR_FAIL(weft_plan_execute_n(plan.p, n, ins.data(), outs.data(), nullptr, nullptr,
                                        iter == 1 ? &work : nullptr));
    if (work) {
      WEFT_OK_OR_FAIL(weft_work_wait(work, -1));
      WEFT_OK_OR_FAIL(weft_work_release(work));
    }
    for (int32_t i = 0; i < n; ++i)
      Check(*out[i], TypeNamed(ts[i].type), ts[i].shape, iter + i,
            what + " tensor " + std::to_string(i));
  }
}

TEST(Batched, SamePairFused) {
  const int64_t n = TheWorld().size;
  // Shapes differ per tensor and are uneven over the world; one placement pair per batch.
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"S0", "S1"}, {"S0", "R"}, {"R", "S1"}, {"S1", "S0"}};
  for (const auto& [a, b] : pairs)
    RunBatch({n},
             {{"float32", {2 * n + 1, 3}, {a}, {b}},
              {"int64", {3, n + 2}, {a}, {b}},
              {"float16", {n, 2 * n + 3}, {a}, {b}}},
             true);
}

TEST(Batched, PartialFusedByDtype) {
  const int64_t n = TheWorld().size;
  // Two float32 tensors share one reduction; the int32 one runs its own in the same step.
  for (const std::string b : {"S0", "R"})
    RunBatch({n},
             {{"float32", {2 * n + 1, 3}, {"Ps"}, {b}},
              {"int32", {n + 2, 2}, {"Ps"}, {b}},
              {"float32", {3, 5}, {"Ps"}, {b}}},
             true);
  RunBatch({n}, {{"float64", {n + 1, 2}, {"Pm"}, {"S1"}}, {"uint8", {4, n + 3}, {"Pm"}, {"S1"}}},
           true);
}

TEST(Batched, DifferentPairsInTurn) {
  const int64_t n = TheWorld().size;
  if (n == 1) {
    // On one rank every plan is a local copy (zero steps): trivially one structure.
    RunBatch({n}, {{"float32", {3, 4}, {"S0"}, {"S1"}}, {"int16", {5, 2}, {"Ps"}, {"R"}}}, true);
    return;
  }
  RunBatch({n},
           {{"float32", {2 * n + 1, 3}, {"S0"}, {"S1"}},
            {"int64", {3, n + 2}, {"R"}, {"S0"}},
            {"bfloat16", {n + 1, 3}, {"Ps"}, {"R"}}},
           false);
}

TEST(Batched, BadArguments) {
  const int64_t n = TheWorld().size;
  Mesh mesh({n});
  Layout a(mesh, {4, 4}, TypeNamed("float32").dl, {"S0"});
  Layout b(mesh, {4, 5}, TypeNamed("float32").dl, {"R"});
  const weft_layout_t* srcs[2] = {a.l, a.l};
  const weft_layout_t* dsts[2] = {a.l, b.l};
  Plan plan;
  // Pair 1 changes the global shape: rejected on every rank before any communication.
  EXPECT_EQ(weft_redistribute_plan_create_n(2, srcs, dsts, nullptr, &plan.p),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(weft_last_error()).find("pair 1"), std::string::npos) << weft_last_error();
  EXPECT_EQ(weft_redistribute_plan_create_n(0, srcs, dsts, nullptr, &plan.p),
            WEFT_ERR_INVALID_ARGUMENT);
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create_n(2, srcs, srcs, nullptr, &plan.p));
  // n must match the plan's count (checked before any communication).
  EXPECT_EQ(weft_plan_execute_n(plan.p, 1, nullptr, nullptr, nullptr, nullptr, nullptr),
            WEFT_ERR_INVALID_ARGUMENT);
}

// SPEC §6.4 for batches: one rank plans a different pair 1; every rank gets
// WEFT_ERR_INVALID_USAGE from the first execution and nothing moves.
TEST(PlanCheck, BatchedRanksWithDifferentPairs) {
  World& w = TheWorld();
  Mesh mesh({w.size});
  const Type& t = TypeNamed("float32");
  Layout src(mesh, {2 * w.size, 3}, t.dl, {"S0"}), r(mesh, {2 * w.size, 3}, t.dl, {"R"});
  Layout other(mesh, {2 * w.size, 3}, t.dl, {w.rank == 0 ? "S1" : "R"});
  const weft_layout_t* srcs[2] = {src.l, src.l};
  const weft_layout_t* dsts[2] = {r.l, other.l};
  Plan plan;
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create_n(2, srcs, dsts, nullptr, &plan.p));
  Local in0(src, t, w.rank), in1(src, t, w.rank), out0(r, t, w.rank), out1(other, t, w.rank);
  const DLTensor* ins[2] = {&in0.t, &in1.t};
  DLTensor* outs[2] = {&out0.t, &out1.t};
  const weft::test::Buffer<char> before0 = out0.mem, before1 = out1.mem;
  EXPECT_EQ(weft_plan_execute_n(plan.p, 2, ins, outs, nullptr, nullptr, nullptr),
            WEFT_ERR_INVALID_USAGE);
  EXPECT_NE(std::string(weft_last_error()).find("different batched redistribute plans"),
            std::string::npos)
      << weft_last_error();
  EXPECT_EQ(out0.mem, before0);
  EXPECT_EQ(out1.mem, before1);
}

// A 2x2 mesh on 4 ranks: [S0,S1] -> [S1,S0] and the nested gather [S0,S0] -> [R,R] for three
// tensors. Fusion needs one step structure, and the cost model picks the order of the mesh
// dims from the shape, so the shapes here share their aspect ratio (the dtypes differ).
TEST(BatchedTwoD, Mesh2x2) {
  for (const auto& [a, b] :
       std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>{
           {{"S0", "S1"}, {"S1", "S0"}}, {{"S0", "S0"}, {"R", "R"}}})
    RunBatch({2, 2},
             {{"float32", {6, 7}, a, b}, {"int8", {12, 14}, a, b}, {"complex64", {6, 7}, a, b}},
             true);
}

}  // namespace
}  // namespace redist
