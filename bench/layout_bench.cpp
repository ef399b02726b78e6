// Layout metadata through the C ABI on an abstract 100 000-rank mesh (SPEC §2.2: a rank's
// block in time independent of the world size). Targets: weft_layout_local_shape < 1 µs,
// weft_layout_create < 50 µs. Each is also reported as a ratio of a plain-loop reference
// measured in the same run.
//
//   layout_bench                            # full run
//   layout_bench --benchmark_min_time=0.01  # CI smoke run (target bench_layout_smoke)
#include <benchmark/benchmark.h>
#include <weft/weft.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "bench/ratio_reporter.hpp"

namespace {

// Mesh [50, 40, 50] = 100 000 ranks; tensor [4096, 4096, 1024] float32 with [S0, S1, S0]:
// tensor dim 0 is nested over mesh dims 0 and 2 (2500 pieces), dim 1 cut over mesh dim 1.
constexpr int64_t kMesh[3] = {50, 40, 50};
constexpr int64_t kShape[3] = {4096, 4096, 1024};
constexpr int64_t kRanks = kMesh[0] * kMesh[1] * kMesh[2];
constexpr int64_t kDim0Pieces = kMesh[0] * kMesh[2];
constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};
const weft_placement_t kPlacements[3] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1),
                                         WEFT_PLACEMENT_SHARD(0)};

void Check(weft_status_t s, const char* what) {
  if (s == WEFT_OK) return;
  std::fprintf(stderr, "layout_bench: %s failed: %s\n", what, weft_last_error());
  std::exit(1);
}

// Random sizes (some zero) summing to n: the ragged variant's explicit split.
std::vector<int64_t> RaggedSizes(int64_t n, int64_t pieces, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> sizes(static_cast<size_t>(pieces), 0);
  for (int64_t i = 0; i < n; ++i) ++sizes[rng() % (pieces - pieces / 8)];  // last 1/8 empty
  return sizes;
}

struct Fixture {
  weft_mesh_t* mesh = nullptr;
  weft_layout_t* chunk = nullptr;
  weft_layout_t* ragged = nullptr;
  std::vector<int64_t> sizes0 = RaggedSizes(kShape[0], kDim0Pieces, 1);
  std::vector<int64_t> sizes1 = RaggedSizes(kShape[1], kMesh[1], 2);
  const int64_t* split_sizes[3] = {sizes0.data(), sizes1.data(), nullptr};
  const int64_t split_counts[3] = {kDim0Pieces, kMesh[1], 0};
  std::vector<int32_t> ranks;  // a random visiting order, so no branch pattern is learned

  Fixture() {
    Check(weft_mesh_create(nullptr, 3, kMesh, nullptr, &mesh), "weft_mesh_create");
    Check(weft_layout_create(mesh, 3, kShape, kFloat32, kPlacements, &chunk), "weft_layout_create");
    Check(weft_layout_create_ragged(mesh, 3, kShape, kFloat32, kPlacements, split_sizes,
                                    split_counts, &ragged),
          "weft_layout_create_ragged");
    std::mt19937 rng(3);
    for (int i = 0; i < 4096; ++i) ranks.push_back(static_cast<int32_t>(rng() % kRanks));
  }
  ~Fixture() {
    weft_layout_destroy(ragged);
    weft_layout_destroy(chunk);
    weft_mesh_destroy(mesh);
  }
};

Fixture& F() {
  static Fixture f;
  return f;
}

void BM_LocalShapeChunk(benchmark::State& state) {
  int64_t shape[3], offset[3];
  size_t i = 0;
  for (auto _ : state) {
    Check(weft_layout_local_shape(F().chunk, F().ranks[i++ & 4095], shape, offset),
          "weft_layout_local_shape");
    benchmark::DoNotOptimize(shape);
    benchmark::DoNotOptimize(offset);
  }
}

void BM_LocalShapeRagged(benchmark::State& state) {
  int64_t shape[3], offset[3];
  size_t i = 0;
  for (auto _ : state) {
    Check(weft_layout_local_shape(F().ragged, F().ranks[i++ & 4095], shape, offset),
          "weft_layout_local_shape");
    benchmark::DoNotOptimize(shape);
    benchmark::DoNotOptimize(offset);
  }
}

// Reference: the same block computed by a plain loop (row-major coordinate, then torch.chunk
// nested over mesh dims 0 and 2 for tensor dim 0, over mesh dim 1 for tensor dim 1).
void ChunkRef(int64_t n, int64_t k, int64_t r, int64_t* off, int64_t* size) {
  const int64_t c = (n + k - 1) / k;
  const int64_t b = c * r < n ? c * r : n, e = c * (r + 1) < n ? c * (r + 1) : n;
  *off = b;
  *size = e - b;
}

void BM_ReferenceChunkLoop(benchmark::State& state) {
  int64_t shape[3], offset[3];
  size_t i = 0;
  for (auto _ : state) {
    const int64_t r = F().ranks[i++ & 4095];
    const int64_t c0 = r / (kMesh[1] * kMesh[2]), c1 = r / kMesh[2] % kMesh[1], c2 = r % kMesh[2];
    int64_t o0, s0, o1, s1;
    ChunkRef(kShape[0], kMesh[0], c0, &o0, &s0);
    ChunkRef(s0, kMesh[2], c2, &o1, &s1);
    shape[0] = s1;
    offset[0] = s1 == 0 ? kShape[0] : o0 + o1;
    ChunkRef(kShape[1], kMesh[1], c1, &offset[1], &shape[1]);
    shape[2] = kShape[2];
    offset[2] = 0;
    benchmark::DoNotOptimize(shape);
    benchmark::DoNotOptimize(offset);
  }
}

// Reference for the ragged query: coordinate, then a lookup in precomputed offset tables.
void BM_ReferenceRaggedLookup(benchmark::State& state) {
  std::vector<int64_t> off0(F().sizes0.size()), off1(F().sizes1.size());
  for (size_t p = 1; p < off0.size(); ++p) off0[p] = off0[p - 1] + F().sizes0[p - 1];
  for (size_t p = 1; p < off1.size(); ++p) off1[p] = off1[p - 1] + F().sizes1[p - 1];
  int64_t shape[3], offset[3];
  size_t i = 0;
  for (auto _ : state) {
    const int64_t r = F().ranks[i++ & 4095];
    const int64_t c0 = r / (kMesh[1] * kMesh[2]), c1 = r / kMesh[2] % kMesh[1], c2 = r % kMesh[2];
    const int64_t p0 = c0 * kMesh[2] + c2;
    shape[0] = F().sizes0[p0];
    offset[0] = shape[0] == 0 ? kShape[0] : off0[p0];
    shape[1] = F().sizes1[c1];
    offset[1] = shape[1] == 0 ? kShape[1] : off1[c1];
    shape[2] = kShape[2];
    offset[2] = 0;
    benchmark::DoNotOptimize(shape);
    benchmark::DoNotOptimize(offset);
  }
}

void BM_LayoutCreateChunk(benchmark::State& state) {
  for (auto _ : state) {
    weft_layout_t* layout = nullptr;
    Check(weft_layout_create(F().mesh, 3, kShape, kFloat32, kPlacements, &layout),
          "weft_layout_create");
    Check(weft_layout_destroy(layout), "weft_layout_destroy");
  }
}

void BM_LayoutCreateRagged(benchmark::State& state) {
  for (auto _ : state) {
    weft_layout_t* layout = nullptr;
    Check(weft_layout_create_ragged(F().mesh, 3, kShape, kFloat32, kPlacements, F().split_sizes,
                                    F().split_counts, &layout),
          "weft_layout_create_ragged");
    Check(weft_layout_destroy(layout), "weft_layout_destroy");
  }
}

// Reference for create: the least a layout must do, i.e. own a copy of its arguments (and,
// when ragged, of its piece sizes with their prefix sums).
void CopyArguments(benchmark::State& state, bool ragged) {
  for (auto _ : state) {
    auto shape = std::make_unique<std::vector<int64_t>>(kShape, kShape + 3);
    std::vector<weft_placement_t> placements(kPlacements, kPlacements + 3);
    std::vector<int64_t> sizes, offsets;
    if (ragged) {
      sizes.assign(F().sizes0.begin(), F().sizes0.end());
      sizes.insert(sizes.end(), F().sizes1.begin(), F().sizes1.end());
      offsets.resize(sizes.size());
      for (size_t p = 1; p < sizes.size(); ++p) offsets[p] = offsets[p - 1] + sizes[p - 1];
    }
    benchmark::DoNotOptimize(shape->data());
    benchmark::DoNotOptimize(placements.data());
    benchmark::DoNotOptimize(offsets.data());
  }
}

void BM_ReferenceCopyArgs(benchmark::State& state) { CopyArguments(state, false); }
void BM_ReferenceCopyRaggedArgs(benchmark::State& state) { CopyArguments(state, true); }

BENCHMARK(BM_ReferenceChunkLoop);
BENCHMARK(BM_LocalShapeChunk);
BENCHMARK(BM_ReferenceRaggedLookup);
BENCHMARK(BM_LocalShapeRagged);
BENCHMARK(BM_ReferenceCopyArgs);
BENCHMARK(BM_LayoutCreateChunk);
BENCHMARK(BM_ReferenceCopyRaggedArgs);
BENCHMARK(BM_LayoutCreateRagged);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  weft::bench::RatioReporter reporter({{"BM_LocalShapeChunk", "BM_ReferenceChunkLoop"},
                                       {"BM_LocalShapeRagged", "BM_ReferenceRaggedLookup"},
                                       {"BM_LayoutCreateChunk", "BM_ReferenceCopyArgs"},
                                       {"BM_LayoutCreateRagged", "BM_ReferenceCopyRaggedArgs"}});
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
