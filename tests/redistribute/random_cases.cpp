// Randomized property test: random layout pairs (meshes that fit the world, 0-3 tensor dims,
// chunk and ragged splits with empty pieces, nested sharding, Partial sum or max) executed end
// to end and checked element by element. Rank 0 draws the seed and broadcasts it (so every CI
// run tries new pairs); REDIST_SEED replays one. The seed is printed with every failure.
#include <cstdlib>
#include <ctime>
#include <random>

#include "harness.hpp"

namespace redist {
namespace {

constexpr int kPairsPerLaunch = 100;

std::vector<std::vector<int64_t>> MeshesFor(int32_t n) {
  std::vector<std::vector<int64_t>> m = {{n}};
  if (n == 4) m.push_back({2, 2});
  if (n == 8) m.insert(m.end(), {{2, 4}, {4, 2}, {2, 2, 2}});
  if (n == 6) m.push_back({2, 3});
  return m;
}

struct Draw {
  std::mt19937_64 rng;
  int64_t Below(int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); }

  std::vector<std::string> Placements(size_t mesh_ndim, int64_t tensor_ndim, const char* partial) {
    std::vector<std::string> p;
    for (size_t m = 0; m < mesh_ndim; ++m) {
      const int64_t k = Below(tensor_ndim > 0 ? 4 : 2);
      p.push_back(k == 0 ? "R" : k == 1 ? partial : "S" + std::to_string(Below(tensor_ndim)));
    }
    return p;
  }

  // Random piece sizes (some empty) for the dims the placements shard, else chunk.
  std::vector<std::vector<int64_t>> Splits(const std::vector<int64_t>& mesh,
                                           const std::vector<int64_t>& shape,
                                           const std::vector<std::string>& p) {
    std::vector<std::vector<int64_t>> s(shape.size());
    if (Below(2) == 0) return {};
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t pieces = 1;
      for (size_t m = 0; m < p.size(); ++m)
        if (p[m] == "S" + std::to_string(d)) pieces *= mesh[m];
      if (pieces == 1) continue;
      s[d].assign(static_cast<size_t>(pieces), 0);
      for (int64_t left = shape[d]; left > 0; --left) ++s[d][static_cast<size_t>(Below(pieces))];
    }
    return s;
  }
};

TEST(Random, LayoutPairsEndToEnd) {
  World& w = TheWorld();
  uint64_t seed = static_cast<uint64_t>(std::time(nullptr)) * 2654435761u;
  if (const char* e = std::getenv("REDIST_SEED")) seed = std::strtoull(e, nullptr, 10);
  int64_t one = 1;
  DLTensor t{&seed, {kDLCPU, 0}, 1, DLDataType{kDLUInt, 64, 1}, &one, nullptr, 0};
  WEFT_OK_OR_FAIL(weft_broadcast(w.ctx, nullptr, 0, &t, 0, nullptr, nullptr, nullptr));
  SCOPED_TRACE("REDIST_SEED=" + std::to_string(seed) + " (" + std::to_string(w.size) + " ranks)");
  Draw draw{std::mt19937_64(seed)};
  const auto meshes = MeshesFor(w.size);
  for (int i = 0; i < kPairsPerLaunch && !HasFailure(); ++i) {
    PairSpec s;
    s.mesh = meshes[static_cast<size_t>(draw.Below(static_cast<int64_t>(meshes.size())))];
    const int64_t nd = draw.Below(4);
    for (int64_t d = 0; d < nd; ++d) s.shape.push_back(draw.Below(8));
    const char* partial = draw.Below(2) ? "Ps" : "Pm";
    s.type = draw.Below(2) ? "float32" : "int32";
    s.src = draw.Placements(s.mesh.size(), nd, partial);
    s.dst = draw.Placements(s.mesh.size(), nd, partial);
    s.src_splits = draw.Splits(s.mesh, s.shape, s.src);
    s.dst_splits = draw.Splits(s.mesh, s.shape, s.dst);
    s.strided_out = draw.Below(4) == 0;
    SCOPED_TRACE("pair " + std::to_string(i));
    RunPair(s);
  }
}

}  // namespace
}  // namespace redist
