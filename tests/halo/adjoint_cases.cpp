// Randomized plans (meshes that fit the world, 1-3 tensor dims, chunk and ragged splits with
// empty pieces, nested sharding, Replicate and Partial mesh dims, uniform and explicit windows,
// every boundary rule, box and star): the exchange and both accumulate modes against the
// reference, and the adjoint identity <exchange(x), y> = <x, accumulate(y)> summed over the
// world, exactly (float64 with small integers). Rank 0 draws the seed and broadcasts it;
// HALO_SEED replays one. The seed is printed with every failure.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <random>

#include "check.hpp"

namespace halo {
namespace {

struct Draw {
  std::mt19937_64 rng;
  int64_t Below(int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); }
  int64_t In(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }

  std::vector<int64_t> MeshShape() {
    const int64_t k = TheWorld().size;
    std::vector<std::vector<int64_t>> m = {Mesh1D(), Mesh2D(), Mesh3D(), {1, k}};
    if (k == 8) m.push_back({2, 4});
    return m[static_cast<size_t>(Below(static_cast<int64_t>(m.size())))];
  }

  // Random piece sizes (some empty) for the dims the placements shard, else chunk.
  std::vector<std::vector<int64_t>> Splits(const Case& c) {
    std::vector<std::vector<int64_t>> s(c.shape.size());
    if (Below(3) == 0) return {};
    for (size_t d = 0; d < c.shape.size(); ++d) {
      int64_t pieces = 1;
      for (size_t m = 0; m < c.placements.size(); ++m)
        if (c.placements[m] == "S" + std::to_string(d)) pieces *= c.mesh[m];
      if (pieces == 1) continue;
      s[d].assign(static_cast<size_t>(pieces), 0);
      for (int64_t left = c.shape[d]; left > 0; --left) ++s[d][static_cast<size_t>(Below(pieces))];
    }
    return s;
  }

  int32_t Rule(int64_t* pad, int64_t n) {
    const int32_t r = static_cast<int32_t>(Below(6));
    if (r == WEFT_BOUNDARY_NONE) *pad = 0;
    if (r == WEFT_BOUNDARY_REFLECT) *pad = std::min(*pad, n - 1);
    if (r == WEFT_BOUNDARY_SYMMETRIC || r == WEFT_BOUNDARY_PERIODIC) *pad = std::min(*pad, n);
    return r;
  }

  DimSpec Dim(int32_t dim, int64_t n, int64_t positions) {
    DimSpec d;
    d.dim = dim;
    d.pad_lo = Below(4), d.pad_hi = Below(4);
    d.rule_lo = Rule(&d.pad_lo, n);
    d.rule_hi = Rule(&d.pad_hi, n);
    d.lo = Below(4), d.hi = Below(4);
    if (Below(3) == 0) {  // explicit: any windows inside [-pad_lo, n + pad_hi)
      for (int64_t p = 0; p < positions; ++p) {
        const int64_t b = In(-d.pad_lo, n + d.pad_hi), e = In(b, n + d.pad_hi);
        d.windows.insert(d.windows.end(), {b, e});
      }
    }
    return d;
  }

  Case Make() {
    Case c;
    c.mesh = MeshShape();
    if (Below(4) == 0) {  // a shuffled rank list: positions are not world ranks
      for (int32_t r = 0; r < TheWorld().size; ++r) c.mesh_ranks.push_back(r);
      std::shuffle(c.mesh_ranks.begin(), c.mesh_ranks.end(), rng);
    }
    const int64_t nd = In(1, 3);
    for (int64_t d = 0; d < nd; ++d) c.shape.push_back(In(1, 7));
    for (size_t m = 0; m < c.mesh.size(); ++m) {
      const int64_t x = Below(6);
      c.placements.push_back(x == 0 ? "R" : x == 1 ? "Ps" : "S" + std::to_string(Below(nd)));
    }
    c.splits = Splits(c);
    int64_t positions = 1;
    for (int64_t e : c.mesh) positions *= e;
    for (int32_t d = 0; d < nd; ++d)
      if (Below(3) != 0 || (d == nd - 1 && c.halo.dims.empty()))
        c.halo.dims.push_back(Dim(d, c.shape[static_cast<size_t>(d)], positions));
    if (Below(2)) std::swap(c.halo.dims.front(), c.halo.dims.back());  // any entry order
    c.halo.stencil = static_cast<int32_t>(Below(2));
    c.halo.transport = Below(2) ? WEFT_HALO_TRANSPORT_AUTO : WEFT_HALO_TRANSPORT_NEIGHBOR;
    c.halo.constant = 0;  // the exchange is linear only with zero padding
    return c;
  }
};

uint64_t Hash(uint64_t h, int64_t x) {
  h ^= static_cast<uint64_t>(x) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// Integers in [-3, 3]: x of the group's data, y of every rank's padded cells.
DataFn RandomData(const Geometry& geo, uint64_t salt) {
  return [&geo, salt](int32_t r, const std::vector<int64_t>& g) {
    uint64_t h = Hash(salt, geo.PartialIndex(r));
    for (int64_t x : g) h = Hash(h, x);
    return double(int64_t((h >> 20) % 7) - 3);
  };
}
DataFn RandomGrad(uint64_t salt) {
  return [salt](int32_t r, const std::vector<int64_t>& g) {
    uint64_t h = Hash(salt ^ 0x5555, r);
    for (int64_t x : g) h = Hash(h, x);
    return double(int64_t((h >> 20) % 7) - 3);
  };
}

// <exchange(x), y> and <x, accumulate(y)> over the world.
void CheckAdjoint(Setup& s, uint64_t salt) {
  const DataFn x = RandomData(s.geo, salt), y = RandomGrad(salt + 1);
  auto padded = RunExchange(s, x, false);
  CheckPadded(s, *padded, x, false);
  auto grad = RunAccumulate(s, y, 0, x);
  CheckGrad(s, *grad, y, 0, x);
  double lhs = 0, rhs = 0;
  ForEachIndex(padded->shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> g = i;
    for (size_t d = 0; d < g.size(); ++d) g[d] += s.Window().begin[d];
    lhs += DecodeF64(padded->At(i)) * y(s.me, g);
  });
  ForEachIndex(grad->shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> g = i;
    for (size_t d = 0; d < g.size(); ++d) g[d] += s.Owned().begin[d];
    rhs += x(s.me, g) * DecodeF64(grad->At(i));
  });
  EXPECT_EQ(AllSum(lhs), AllSum(rhs)) << "<exchange(x), y> != <x, accumulate(y)> | " << s.c.Name();
  AccumulateAndCheck(s, y, 1, RandomData(s.geo, salt + 2));
}

TEST(Adjoint, RandomPlans) {
  World& w = TheWorld();
  uint64_t seed = static_cast<uint64_t>(std::time(nullptr)) * 2654435761u;
  if (const char* e = std::getenv("HALO_SEED")) seed = std::strtoull(e, nullptr, 10);
  int64_t one = 1;
  DLTensor t{&seed, {kDLCPU, 0}, 1, DLDataType{kDLUInt, 64, 1}, &one, nullptr, 0};
  WEFT_OK_OR_FAIL(weft_broadcast(w.ctx, nullptr, 0, &t, 0, nullptr, nullptr, nullptr));
  SCOPED_TRACE("HALO_SEED=" + std::to_string(seed) + " (" + std::to_string(w.size) + " ranks)");
  Draw draw{std::mt19937_64(seed)};
  const int plans = w.size >= 8 ? 12 : 30;
  for (int i = 0; i < plans && !AnyRankFailed(); ++i) {
    const Case c = draw.Make();
    SCOPED_TRACE("plan " + std::to_string(i) + ": " + c.Name());
    auto s = MakeSetup(c);
    ASSERT_EQ(s->status, WEFT_OK);
    CheckWindows(*s);
    CheckAdjoint(*s, seed + uint64_t(i) * 17);
  }
}

}  // namespace
}  // namespace halo
