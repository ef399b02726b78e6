// Plans as objects: errors every rank reports alike at plan creation, the first-execution
// check of SPEC §6.4, abstract meshes, stats and describe, and the exact -0.0 of R -> P(sum).
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "harness.hpp"
#include "tests/support/device_buffers.hpp"

namespace redist {
namespace {

const DLDataType kF32{kDLFloat, 32, 1};

TEST(PlanErrors, MismatchedLayoutsFailAlikeOnEveryRank) {
  World& w = TheWorld();
  Mesh mesh({w.size}), other({w.size});  // equal meshes: the same mesh as far as layouts go
  Mesh abstract({w.size}, nullptr);
  Layout a(mesh, {4, 3}, kF32, {"S0"});
  Layout shape(mesh, {5, 3}, kF32, {"R"});
  Layout dtype(mesh, {4, 3}, DLDataType{kDLFloat, 64, 1}, {"R"});
  Layout on_abstract(abstract, {4, 3}, kF32, {"R"});
  Layout psum(mesh, {4, 3}, kF32, {"Ps"}), pmax(other, {4, 3}, kF32, {"Pm"});
  struct Case {
    const Layout &src, &dst;
    const char* says;
  } cases[] = {{a, shape, "different global shapes"},
               {a, dtype, "differs from dst dtype"},
               {a, on_abstract, "different meshes"},
               {psum, pmax, "changes the reduction op"}};
  for (const Case& c : cases) {
    // Also with one rank, where a Partial is plain data: the pair is wrong on every mesh.
    Plan plan;
    EXPECT_EQ(weft_redistribute_plan_create(c.src.l, c.dst.l, nullptr, &plan.p),
              WEFT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(plan.p, nullptr);  // written only on success
    EXPECT_NE(std::strstr(weft_last_error(), c.says), nullptr) << weft_last_error();
    EXPECT_NE(std::strstr(weft_last_error(), "weft_redistribute_plan_create"), nullptr);
  }
  // The one-shot call fails the same way, before touching anything.
  Local in(a, conformance::AllTypes()[10], w.rank), out(shape, conformance::AllTypes()[10], w.rank);
  EXPECT_EQ(weft_redistribute(a.l, &in.t, shape.l, &out.t, nullptr, nullptr, nullptr),
            WEFT_ERR_INVALID_ARGUMENT);
  Plan plan;
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.reserved = 1;
  EXPECT_EQ(weft_redistribute_plan_create(a.l, a.l, &opts, &plan.p), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(weft_last_error(), "opts->reserved"), nullptr) << weft_last_error();
  EXPECT_EQ(weft_redistribute_plan_create(nullptr, a.l, nullptr, &plan.p),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(weft_last_error(), "src is NULL"), nullptr) << weft_last_error();
}

TEST(PlanErrors, AbstractMeshPlansDescribeButDoNotExecute) {
  const int64_t shape[2] = {4, 2};
  weft_mesh_t* m = nullptr;
  ASSERT_EQ(weft_mesh_create(nullptr, 2, shape, nullptr, &m), WEFT_OK);
  const weft_placement_t s01[2] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1)};
  const weft_placement_t rr[2] = {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE};
  const int64_t global[2] = {800, 600};
  weft_layout_t *src = nullptr, *dst = nullptr;
  ASSERT_EQ(weft_layout_create(m, 2, global, kF32, s01, &src), WEFT_OK);
  ASSERT_EQ(weft_layout_create(m, 2, global, kF32, rr, &dst), WEFT_OK);
  Plan plan;
  EXPECT_EQ(weft_redistribute_plan_create(src, dst, nullptr, &plan.p), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(weft_last_error(), "opts->rank"), nullptr) << weft_last_error();
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.rank = 5;
  ASSERT_EQ(weft_redistribute_plan_create(src, dst, &opts, &plan.p), WEFT_OK);
  weft_plan_stats_t st = WEFT_PLAN_STATS_INIT;
  ASSERT_EQ(weft_plan_stats(plan.p, &st), WEFT_OK);
  // [S0,S1] -> [R,R] of 800x600 float32 over 8 ranks: each holds 200x300 and lacks the rest.
  EXPECT_GE(st.steps, 1);
  EXPECT_GE(st.recv_bytes, (800 * 600 - 200 * 300) * 4);
  EXPECT_LE(st.recv_bytes, 2 * (800 * 600 - 200 * 300) * 4);
  size_t needed = 0;
  ASSERT_EQ(weft_plan_describe(plan.p, nullptr, 0, &needed), WEFT_OK);
  std::string text(needed, '\0');
  ASSERT_EQ(weft_plan_describe(plan.p, text.data(), needed, &needed), WEFT_OK);
  EXPECT_NE(text.find("rank 5"), std::string::npos) << text;
  EXPECT_EQ(weft_plan_describe(plan.p, text.data(), 3, &needed), WEFT_ERR_INVALID_ARGUMENT);
  std::vector<float> buf(1);
  int64_t one[2] = {1, 1};
  DLTensor t{buf.data(), {kDLCPU, 0}, 2, kF32, one, nullptr, 0};
  EXPECT_EQ(weft_plan_execute(plan.p, &t, &t, nullptr, nullptr, nullptr), WEFT_ERR_INVALID_USAGE);
  EXPECT_NE(std::strstr(weft_last_error(), "abstract"), nullptr) << weft_last_error();
  weft_layout_destroy(src);
  weft_layout_destroy(dst);
  weft_mesh_destroy(m);
}

TEST(PlanStats, OneStepReceivesExactlyWhatTheBlockLacks) {
  World& w = TheWorld();
  Mesh mesh({w.size});
  const int64_t rows = 4 * w.size + 1, cols = 6;
  for (const auto& [a, b] :
       std::vector<std::pair<std::string, std::string>>{{"S0", "R"}, {"S0", "S1"}, {"R", "S1"}}) {
    Layout src(mesh, {rows, cols}, kF32, {a}), dst(mesh, {rows, cols}, kF32, {b});
    Plan plan;
    WEFT_OK_OR_FAIL(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p));
    weft_plan_stats_t st = WEFT_PLAN_STATS_INIT;
    WEFT_OK_OR_FAIL(weft_plan_stats(plan.p, &st));
    int64_t ss[2], so[2], ds[2], dof[2];
    weft_layout_local_shape(src.l, w.rank, ss, so);
    weft_layout_local_shape(dst.l, w.rank, ds, dof);
    int64_t common = 1;  // |src block ∩ dst block|
    for (int d = 0; d < 2; ++d)
      common *=
          std::max<int64_t>(0, std::min(so[d] + ss[d], dof[d] + ds[d]) - std::max(so[d], dof[d]));
    EXPECT_EQ(st.recv_bytes, (ds[0] * ds[1] - common) * 4) << a << "->" << b;
    EXPECT_EQ(st.steps, w.size > 1 ? 1 : 0);
  }
}

TEST(PlanCheck, RanksWithDifferentPlansAllGetInvalidUsage) {
  World& w = TheWorld();
  Mesh mesh({w.size});
  const int64_t rows = 2 * w.size, cols = 3;
  Layout src(mesh, {rows, cols}, kF32, {"S0"});
  // Rank 0 asks for S1, the others for R: each plan is valid, the set is not.
  Layout dst(mesh, {rows, cols}, kF32, {w.rank == 0 ? "S1" : "R"});
  const Type& t = TypeNamed("float32");
  Local in(src, t, w.rank), out(dst, t, w.rank);
  Plan plan;
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p));
  const weft::test::Buffer<char> before = out.mem;
  EXPECT_EQ(weft_plan_execute(plan.p, &in.t, &out.t, nullptr, nullptr, nullptr),
            WEFT_ERR_INVALID_USAGE);
  EXPECT_NE(std::strstr(weft_last_error(), "different redistribute plans"), nullptr)
      << weft_last_error();
  EXPECT_EQ(out.mem, before);  // nothing moved
  // The context is still usable: a matching redistribute goes through.
  PairSpec s;
  s.mesh = {w.size};
  s.shape = {rows, cols};
  s.src = {"S0"};
  s.dst = {"S1"};
  RunPair(s);
}

TEST(Conjugates, ReplicateToPartialSumKeepsExactValues) {
  World& w = TheWorld();
  Mesh mesh({w.size});
  Layout src(mesh, {3, 2}, kF32, {"R"}), dst(mesh, {3, 2}, kF32, {"Ps"});
  const Type& t = TypeNamed("float32");
  Local in(src, t, w.rank), out(dst, t, w.rank);
  auto* x = reinterpret_cast<float*>(in.mem.data());
  for (int i = 0; i < 6; ++i) x[i] = i == 2 ? -0.0f : float(i) + 0.5f;
  WEFT_OK_OR_FAIL(weft_redistribute(src.l, &in.t, dst.l, &out.t, nullptr, nullptr, nullptr));
  weft::test::SyncDevice();
  const auto* y = reinterpret_cast<const float*>(out.mem.data());
  for (int i = 0; i < 6; ++i) {
    if (w.rank == 0) {
      EXPECT_EQ(std::memcmp(&x[i], &y[i], 4), 0) << i;
    } else {
      EXPECT_TRUE(y[i] == 0.0f && std::signbit(y[i])) << "rank " << w.rank << " holds " << y[i];
    }
  }
}

}  // namespace
}  // namespace redist

namespace redist {
namespace {

// SPEC §6.3: a plan has at most one execution in flight. Rank 0's first (async) execution
// cannot finish before the last rank joins it, which that rank delays, so rank 0's second
// call surely finds it in flight.
TEST(Concurrency, SecondExecutionInFlightIsRejected) {
  World& w = TheWorld();
  Mesh mesh({w.size});
  const int64_t rows = 2 * w.size, cols = 3;
  Layout src(mesh, {rows, cols}, kF32, {"S0"}), dst(mesh, {rows, cols}, kF32, {"R"});
  const Type& t = TypeNamed("float32");
  Local in(src, t, w.rank), out(dst, t, w.rank), out2(dst, t, w.rank);
  Plan plan;
  WEFT_OK_OR_FAIL(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p));
  if (w.rank == w.size - 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  weft_work_t* work = nullptr;
  WEFT_OK_OR_FAIL(weft_plan_execute(plan.p, &in.t, &out.t, nullptr, nullptr, &work));
  if (w.rank == 0) {
    EXPECT_EQ(weft_plan_execute(plan.p, &in.t, &out2.t, nullptr, nullptr, nullptr),
              WEFT_ERR_INVALID_USAGE);
    EXPECT_NE(std::strstr(weft_last_error(), "in flight"), nullptr) << weft_last_error();
  }
  WEFT_OK_OR_FAIL(weft_work_wait(work, -1));
  WEFT_OK_OR_FAIL(weft_work_release(work));
  // Once it completed, the plan runs again.
  WEFT_OK_OR_FAIL(weft_plan_execute(plan.p, &in.t, &out2.t, nullptr, nullptr, nullptr));
}

}  // namespace
}  // namespace redist
