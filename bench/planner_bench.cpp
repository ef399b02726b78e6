// The redistribute planner on an abstract 100 000-rank mesh (SPEC §3.2: plans are computed
// once per layout pair, identically on every rank). Target: PlanRedistribute < 10 ms for a 3-D
// pair; Localize of one rank is O(its group sizes). Reported also as ratios of Layout::Create
// of the destination layout, a metadata operation measured in the same run.
//
// The planner has no C ABI yet, so this links weft_planner directly.
//
//   planner_bench                            # full run
//   planner_bench --benchmark_min_time=0.01  # CI smoke run (target bench_planner_smoke)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "placement/layout.hpp"
#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"

namespace {

using weft::placement::Layout;
using weft::placement::LayoutPtr;
using weft::placement::Mesh;
using weft::placement::Placement;
using weft::placement::Replicate;
using weft::placement::Shard;
namespace planner = weft::placement::planner;

// Mesh [50, 40, 50] = 100 000 ranks; tensor [4096, 4096, 1024] float32. src [S0, S1, S0]
// (tensor dim 0 nested over mesh dims 0 and 2), dst [S1, R, S2].
const std::vector<int64_t> kMesh = {50, 40, 50};
const std::vector<int64_t> kShape = {4096, 4096, 1024};
constexpr weft::DType kFloat32{weft::kCodeFloat, 32, 1};

template <class T>
T Must(weft::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "planner_bench: %s failed: %s\n", what, r.status().message().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

// Random sizes (the last 1/8 empty) summing to n: the ragged variant's explicit split.
std::vector<int64_t> RaggedSizes(int64_t n, int64_t pieces, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> sizes(static_cast<size_t>(pieces), 0);
  for (int64_t i = 0; i < n; ++i) ++sizes[rng() % (pieces - pieces / 8)];
  return sizes;
}

struct Fixture {
  weft::placement::MeshPtr mesh = Must(Mesh::Create({{}, -1, kMesh, {}, {}}), "mesh");
  LayoutPtr src = Make({Shard{0}, Shard{1}, Shard{0}}, {});
  LayoutPtr dst = Make({Shard{1}, Replicate{}, Shard{2}}, {});
  LayoutPtr ragged_src =
      Make({Shard{0}, Shard{1}, Shard{0}}, {RaggedSizes(kShape[0], kMesh[0] * kMesh[2], 1),
                                            RaggedSizes(kShape[1], kMesh[1], 2), std::nullopt});
  planner::Plan plan = Must(planner::PlanRedistribute(src, dst), "plan");

  LayoutPtr Make(std::vector<Placement> ps, std::vector<std::optional<std::vector<int64_t>>> s) {
    return Must(Layout::Create({mesh, kShape, kFloat32, std::move(ps), std::move(s)}), "layout");
  }
};

Fixture& F() {
  static Fixture f;
  return f;
}

void BM_PlanChunk(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(planner::PlanRedistribute(F().src, F().dst));
}

void BM_PlanRagged(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(planner::PlanRedistribute(F().ragged_src, F().dst));
}

void BM_LocalizeOneRank(benchmark::State& state) {
  std::mt19937 rng(3);
  for (auto _ : state)
    benchmark::DoNotOptimize(planner::Localize(F().plan, static_cast<int32_t>(rng() % 100000)));
}

// Reference: creating the destination layout, the cheapest per-pair metadata work there is.
void BM_ReferenceLayoutCreate(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(F().Make({Shard{1}, Replicate{}, Shard{2}}, {}));
}

BENCHMARK(BM_ReferenceLayoutCreate);
BENCHMARK(BM_PlanChunk)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanRagged)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LocalizeOneRank)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("plan (rank 0):\n%s", planner::Describe(F().plan, 0).c_str());
  weft::bench::RatioReporter reporter({{"BM_PlanChunk", "BM_ReferenceLayoutCreate"},
                                       {"BM_PlanRagged", "BM_ReferenceLayoutCreate"},
                                       {"BM_LocalizeOneRank", "BM_ReferenceLayoutCreate"}});
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
