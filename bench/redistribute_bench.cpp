// Redistribute through the C ABI (weft/redistribute.h), single process:
//  - dispatch overhead of executing a cached plan (weft_plan_execute) and of the one-shot
//    weft_redistribute (plan-cache hit) on a tiny tensor, on the self backend in a world of
//    one, so that no byte crosses a wire: the time is what the ABI, buffer checks, scheduling
//    and the executor's step loop cost. Target: <= 5 us per weft_plan_execute. Reference in
//    the same run: a blocking weft_allreduce of the same 8 bytes (and an 8-byte memcpy).
//  - planning a 3-D layout pair over an abstract 100 000-rank mesh (weft_mesh_create with no
//    context, weft_plan_options_t.rank set). Target: <= 10 ms; the 1 000-rank mesh in the
//    same run shows whether the time (and the plan's extra_bytes) grows with the world.
//
//   redistribute_bench                            # full run
//   redistribute_bench --benchmark_min_time=0.01  # smoke run
#include <benchmark/benchmark.h>
#include <weft/weft.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "bench/self_world.hpp"

namespace {

constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};

void Check(weft_status_t s, const char* what) { weft::bench::CheckOk(s, what); }

// A world of one on the self backend, a 1-D mesh of it, and a 2-element float32 tensor
// redistributed S(0) -> R (on one rank: every step is local, so only dispatch is timed).
struct World {
  weft_context_t* ctx = nullptr;
  weft_mesh_t* mesh = nullptr;
  weft_layout_t *src = nullptr, *dst = nullptr;
  weft_plan_t* plan = nullptr;
  float send[2] = {1.0f, 2.0f}, recv[2] = {};
  int64_t shape[1] = {2};
  DLTensor in{send, {kDLCPU, 0}, 1, kFloat32, shape, nullptr, 0};
  DLTensor out{recv, {kDLCPU, 0}, 1, kFloat32, shape, nullptr, 0};

  World() {
    ctx = weft::bench::CreateSelfWorld();
    const int64_t mesh_shape[1] = {1};
    Check(weft_mesh_create(ctx, 1, mesh_shape, nullptr, &mesh), "weft_mesh_create");
    const weft_placement_t s0[1] = {WEFT_PLACEMENT_SHARD(0)};
    const weft_placement_t r[1] = {WEFT_PLACEMENT_REPLICATE};
    Check(weft_layout_create(mesh, 1, shape, kFloat32, s0, &src), "weft_layout_create");
    Check(weft_layout_create(mesh, 1, shape, kFloat32, r, &dst), "weft_layout_create");
    Check(weft_redistribute_plan_create(src, dst, nullptr, &plan), "plan_create");
  }
  ~World() {
    weft_plan_destroy(plan);
    weft_layout_destroy(src);
    weft_layout_destroy(dst);
    weft_mesh_destroy(mesh);
    weft_context_destroy(ctx);
  }
};

World& W() {
  static World w;
  return w;
}

void BM_ReferenceMemcpy8(benchmark::State& state) {
  World& w = W();
  for (auto _ : state) {
    benchmark::DoNotOptimize(w.send);
    std::memcpy(w.recv, w.send, sizeof(w.send));
    benchmark::ClobberMemory();
  }
}

void BM_ReferenceAllreduce(benchmark::State& state) {
  World& w = W();
  auto call = [&] {
    return weft_allreduce(w.ctx, nullptr, 0, &w.in, &w.out, WEFT_REDUCE_SUM, nullptr, nullptr,
                          nullptr);
  };
  Check(call(), "weft_allreduce");  // creates the communicator: not the steady state
  for (auto _ : state) Check(call(), "weft_allreduce");
  benchmark::DoNotOptimize(w.recv);
}

void BM_PlanExecute(benchmark::State& state) {
  World& w = W();
  auto call = [&] { return weft_plan_execute(w.plan, &w.in, &w.out, nullptr, nullptr, nullptr); };
  Check(call(), "weft_plan_execute");  // the first execution runs the plan check
  for (auto _ : state) Check(call(), "weft_plan_execute");
  benchmark::DoNotOptimize(w.recv);
}

void BM_RedistributeOneShot(benchmark::State& state) {
  World& w = W();
  auto call = [&] {
    return weft_redistribute(w.src, &w.in, w.dst, &w.out, nullptr, nullptr, nullptr);
  };
  Check(call(), "weft_redistribute");  // plans and caches
  for (auto _ : state) Check(call(), "weft_redistribute");
  benchmark::DoNotOptimize(w.recv);
}

// Planning [S0, S1, S0] -> [S1, R, S2] of a [4096, 4096, 1024] float32 tensor (tensor dim 0
// nested over mesh dims 0 and 2) on an abstract mesh of the given shape, for one rank near
// the middle, through the C ABI: layout handles made once, the plan made and destroyed per
// iteration.
void BM_PlanCreate3D(benchmark::State& state) {
  const int64_t mesh_shape[3] = {state.range(0), state.range(1), state.range(2)};
  const int64_t shape[3] = {4096, 4096, 1024};
  weft_mesh_t* mesh = nullptr;
  Check(weft_mesh_create(nullptr, 3, mesh_shape, nullptr, &mesh), "abstract weft_mesh_create");
  const weft_placement_t src_p[3] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1),
                                     WEFT_PLACEMENT_SHARD(0)};
  const weft_placement_t dst_p[3] = {WEFT_PLACEMENT_SHARD(1), WEFT_PLACEMENT_REPLICATE,
                                     WEFT_PLACEMENT_SHARD(2)};
  weft_layout_t *src = nullptr, *dst = nullptr;
  Check(weft_layout_create(mesh, 3, shape, kFloat32, src_p, &src), "weft_layout_create");
  Check(weft_layout_create(mesh, 3, shape, kFloat32, dst_p, &dst), "weft_layout_create");
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.rank = static_cast<int32_t>(mesh_shape[0] * mesh_shape[1] * mesh_shape[2] / 2 + 7);
  weft_plan_stats_t stats = WEFT_PLAN_STATS_INIT;
  for (auto _ : state) {
    weft_plan_t* plan = nullptr;
    Check(weft_redistribute_plan_create(src, dst, &opts, &plan), "plan_create (abstract)");
    state.PauseTiming();
    Check(weft_plan_stats(plan, &stats), "weft_plan_stats");
    weft_plan_destroy(plan);
    state.ResumeTiming();
  }
  state.counters["ranks"] = static_cast<double>(mesh_shape[0] * mesh_shape[1] * mesh_shape[2]);
  state.counters["steps"] = static_cast<double>(stats.steps);
  state.counters["extra_MB"] = static_cast<double>(stats.extra_bytes) / 1e6;
  weft_layout_destroy(src);
  weft_layout_destroy(dst);
  weft_mesh_destroy(mesh);
}

BENCHMARK(BM_ReferenceMemcpy8);
BENCHMARK(BM_ReferenceAllreduce);
BENCHMARK(BM_PlanExecute);
BENCHMARK(BM_RedistributeOneShot);
BENCHMARK(BM_PlanCreate3D)->Args({10, 10, 10})->Args({50, 40, 50})->Unit(benchmark::kMillisecond);

std::string DescribePlan() {
  size_t needed = 0;
  weft_plan_describe(W().plan, nullptr, 0, &needed);
  std::string text(needed, '\0');
  Check(weft_plan_describe(W().plan, text.data(), text.size(), &needed), "weft_plan_describe");
  return text.c_str();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("tiny plan (world of one, self backend):\n%s\n", DescribePlan().c_str());
  weft::bench::RatioReporter reporter({{"BM_PlanExecute", "BM_ReferenceAllreduce"},
                                       {"BM_RedistributeOneShot", "BM_ReferenceAllreduce"},
                                       {"BM_PlanExecute", "BM_ReferenceMemcpy8"},
                                       {"BM_ReferenceAllreduce", "BM_ReferenceMemcpy8"}});
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
