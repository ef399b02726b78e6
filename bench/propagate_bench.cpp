// The rules engine's costs (issue 22 item 8): a propagate answered from the cache, one
// computed anew (matmul on a 2x2x2 mesh, inputs that must move), and enumerating every
// candidate of a matmul on a 2x2 mesh. Absolute figures: the targets are absolute (1 us,
// 50 us, 200 us); and a spatially sharded conv2d's, cached and anew (issue 23 item 5).
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

// The domain demo's conv (issue 23 item 5): a 3x3 conv2d on the 1024x1536x8 image sharded over
// a 2x2 mesh, answered from the cache (its halo included), and computed anew.
std::vector<LayoutPtr> ConvInputs() {
  return {Make({2, 2}, {1, 1024, 1536, 8}, {Shard{1}, Shard{2}}),
          Make({2, 2}, {8, 8, 3, 3}, {Replicate{}, Replicate{}})};
}
Attributes ConvAttrs() {
  Attributes a;
  (void)a.Set("padding", std::vector<int64_t>{1});
  (void)a.Set("channels_last", true);
  return a;
}
void BM_PropagateCachedConv2d(benchmark::State& state) {
  Engine engine(Builtins());
  const std::vector<LayoutPtr> in = ConvInputs();
  const Attributes a = ConvAttrs();
  (void)engine.Propagate("conv2d", in, a);
  for (auto _ : state) benchmark::DoNotOptimize(engine.Propagate("conv2d", in, a));
}
BENCHMARK(BM_PropagateCachedConv2d);
void BM_PropagateUncachedConv2d(benchmark::State& state) {
  const std::vector<LayoutPtr> in = ConvInputs();
  const Attributes a = ConvAttrs();
  for (auto _ : state) {
    Engine engine(Builtins());
    benchmark::DoNotOptimize(engine.Propagate("conv2d", in, a));
  }
}
BENCHMARK(BM_PropagateUncachedConv2d)->Unit(benchmark::kMicrosecond);

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
