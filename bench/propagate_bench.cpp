// The rules engine's costs (issue 22 item 8): a propagate answered from the cache, one
// computed anew (matmul on a 2x2x2 mesh, inputs that must move), and enumerating every
// candidate of a matmul on a 2x2 mesh. Absolute figures: the targets are absolute (1 us,
// 50 us, 200 us).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "ops/engine/engine.hpp"
#include "ops/rules/builtin.hpp"

namespace {

using weft::ops::Attributes;
using weft::ops::Engine;
using weft::ops::Registry;
using weft::placement::LayoutPtr;
using weft::placement::Partial;
using weft::placement::Placement;
using weft::placement::Replicate;
using weft::placement::Shard;

LayoutPtr Make(std::vector<int64_t> mesh_shape, std::vector<int64_t> shape,
               std::vector<Placement> p) {
  static std::vector<weft::placement::MeshPtr> meshes;
  weft::placement::Mesh::Spec ms;
  ms.shape = mesh_shape;
  for (const auto& m : meshes)
    if (m->shape() == mesh_shape)
      return *weft::placement::Layout::Create({m, shape, {2, 32, 1}, p, {}});
  meshes.push_back(*weft::placement::Mesh::Create(ms));
  return *weft::placement::Layout::Create({meshes.back(), shape, {2, 32, 1}, p, {}});
}

Registry& Builtins() {
  static Registry r = [] {
    Registry reg;
    (void)weft::ops::RegisterBuiltins(reg);
    return reg;
  }();
  return r;
}

void BM_PropagateCached(benchmark::State& state) {
  Engine engine(Builtins());
  std::vector<LayoutPtr> in = {Make({2, 2, 2}, {64, 512, 256}, {Shard{0}, Shard{2}, Replicate{}}),
                               Make({2, 2, 2}, {64, 256, 128}, {Shard{0}, Shard{1}, Shard{2}})};
  const Attributes none;
  (void)engine.Propagate("bmm", in, none);
  for (auto _ : state) benchmark::DoNotOptimize(engine.Propagate("bmm", in, none));
}
BENCHMARK(BM_PropagateCached);

void BM_PropagateUncachedMatmul3d(benchmark::State& state) {
  std::vector<LayoutPtr> in = {Make({2, 2, 2}, {64, 512, 256}, {Shard{0}, Shard{2}, Replicate{}}),
                               Make({2, 2, 2}, {64, 256, 128}, {Shard{1}, Partial{}, Shard{2}})};
  const Attributes none;
  for (auto _ : state) {
    Engine engine(Builtins());  // a fresh cache: the whole search every time
    benchmark::DoNotOptimize(engine.Propagate("bmm", in, none));
  }
}
BENCHMARK(BM_PropagateUncachedMatmul3d)->Unit(benchmark::kMicrosecond);

void BM_EnumerateMatmul2d(benchmark::State& state) {
  std::vector<LayoutPtr> in = {Make({2, 2}, {512, 256}, {Shard{0}, Shard{1}}),
                               Make({2, 2}, {256, 128}, {Replicate{}, Shard{0}})};
  const Attributes none;
  for (auto _ : state) {
    Engine engine(Builtins());
    benchmark::DoNotOptimize(engine.Enumerate("matmul", in, none));
  }
}
BENCHMARK(BM_EnumerateMatmul2d)->Unit(benchmark::kMicrosecond);

// The wording: every candidate of an einsum on a 2-D mesh (attention scores, heads
// sharded on one mesh dim and the query sequence on the other).
void BM_EnumerateEinsum2d(benchmark::State& state) {
  std::vector<LayoutPtr> in = {Make({2, 2}, {8, 16, 256, 64}, {Shard{1}, Shard{2}}),
                               Make({2, 2}, {8, 16, 256, 64}, {Shard{1}, Replicate{}})};
  Attributes attrs;
  (void)attrs.Set("equation", std::string("bhqd,bhkd->bhqk"));
  for (auto _ : state) {
    Engine engine(Builtins());
    benchmark::DoNotOptimize(engine.Enumerate("einsum", in, attrs));
  }
}
BENCHMARK(BM_EnumerateEinsum2d)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
