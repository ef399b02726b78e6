// Randomised layouts (SPEC §2.2): for thousands of meshes, shapes, placements and explicit
// splits, every rank's block must match the reference rules, the blocks of each replica group
// must tile the global tensor exactly once, and ranks that differ only on Replicate/Partial
// mesh dims must hold the same block. Failures print the seed that reproduces them; set
// WEFT_PROPERTY_SEED to explore other seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "placement/layout.hpp"
#include "tests/placement/placement_test_util.hpp"

namespace weft::placement {
namespace {

using testing::Block;
using testing::RefExplicit;
using testing::RefNestedChunk;
using testing::RefPiece;
using testing::Splits;

constexpr int kCases = 3000;
constexpr uint64_t kDefaultSeed = 0x5eed'1a70u;

struct Case {
  std::vector<int64_t> mesh_shape;
  std::optional<std::vector<int32_t>> ranks;  // nullopt = default row-major
  int32_t world = 0;                          // ranks 0..world-1 are probed
  std::vector<int64_t> shape;
  std::vector<Placement> placements;
  Splits splits;
};

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

int64_t MeshSize(const Case& c) {
  return std::accumulate(c.mesh_shape.begin(), c.mesh_shape.end(), int64_t{1}, std::multiplies<>());
}

// The mesh dims that shard tensor dim `d`, in mesh order (= nesting order).
std::vector<int32_t> ShardingDims(const Case& c, int32_t d) {
  std::vector<int32_t> dims;
  for (size_t m = 0; m < c.placements.size(); ++m)
    if (const auto* s = std::get_if<Shard>(&c.placements[m]); s && s->dim == d)
      dims.push_back(static_cast<int32_t>(m));
  return dims;
}

// Random sizes >= 0 (zeros likely) summing to n.
std::vector<int64_t> RandomComposition(std::mt19937_64& rng, int64_t n, int64_t pieces) {
  std::vector<int64_t> cuts = {0, n};
  for (int64_t i = 1; i < pieces; ++i) cuts.push_back(Uniform(rng, 0, n));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int64_t> sizes;
  for (size_t i = 1; i < cuts.size(); ++i) sizes.push_back(cuts[i] - cuts[i - 1]);
  std::shuffle(sizes.begin(), sizes.end(), rng);
  return sizes;
}

void RandomMesh(std::mt19937_64& rng, Case& c) {
  c.mesh_shape.resize(static_cast<size_t>(Uniform(rng, 1, 3)));
  for (int64_t& e : c.mesh_shape) e = Uniform(rng, 1, 5);
  const int64_t n = MeshSize(c);
  c.world = static_cast<int32_t>(n);
  if (Uniform(rng, 0, 1) == 0) return;
  // A permutation of a random subset of 0..2n-1: some world ranks are outside the mesh.
  std::vector<int32_t> pool(static_cast<size_t>(2 * n));
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), rng);
  pool.resize(static_cast<size_t>(n));
  c.ranks = pool;
  c.world = static_cast<int32_t>(2 * n);
}

void RandomPlacements(std::mt19937_64& rng, Case& c) {
  const auto op = static_cast<ReduceOp>(Uniform(rng, 0, kNumReduceOps - 1));
  for (size_t m = 0; m < c.mesh_shape.size(); ++m) {
    const int64_t kind = Uniform(rng, 0, 3);
    if (kind >= 2 && !c.shape.empty()) {
      c.placements.push_back(Shard{static_cast<int32_t>(Uniform(rng, 0, c.shape.size() - 1))});
    } else if (kind == 1) {
      c.placements.push_back(Partial{op});
    } else {
      c.placements.push_back(Replicate{});
    }
  }
}

void RandomSplits(std::mt19937_64& rng, Case& c) {
  if (Uniform(rng, 0, 2) == 0) return;  // no split list at all
  for (size_t d = 0; d < c.shape.size(); ++d) {
    int64_t pieces = 1;
    for (int32_t m : ShardingDims(c, static_cast<int32_t>(d))) pieces *= c.mesh_shape[m];
    if (Uniform(rng, 0, 1) == 0) {
      c.splits.emplace_back(std::nullopt);
    } else {
      c.splits.emplace_back(RandomComposition(rng, c.shape[d], pieces));
    }
  }
}

Case RandomCase(std::mt19937_64& rng) {
  Case c;
  RandomMesh(rng, c);
  c.shape.resize(static_cast<size_t>(Uniform(rng, 0, 3)));
  for (int64_t& e : c.shape) e = Uniform(rng, 0, 12);
  RandomPlacements(rng, c);
  RandomSplits(rng, c);
  return c;
}

std::vector<int64_t> CoordOfIndex(const Case& c, int64_t index) {
  std::vector<int64_t> coord(c.mesh_shape.size());
  for (size_t m = coord.size(); m-- > 0;) {
    coord[m] = index % c.mesh_shape[m];
    index /= c.mesh_shape[m];
  }
  return coord;
}

// The block SPEC §2.2 gives the mesh coordinate `coord`, from the reference rules.
Block ExpectedBlock(const Case& c, const std::vector<int64_t>& coord) {
  Block b;
  for (int32_t d = 0; d < static_cast<int32_t>(c.shape.size()); ++d) {
    std::vector<int64_t> extents, coords;
    int64_t piece = 0;
    for (int32_t m : ShardingDims(c, d)) {
      extents.push_back(c.mesh_shape[m]);
      coords.push_back(coord[m]);
      piece = piece * c.mesh_shape[m] + coord[m];
    }
    const bool is_explicit = !c.splits.empty() && c.splits[d].has_value();
    const RefPiece p = is_explicit ? RefExplicit(*c.splits[d], piece)
                                   : RefNestedChunk(c.shape[d], extents, coords);
    b.shape.push_back(p.size);
    b.offset.push_back(p.offset);
  }
  return b;
}

// Adds 1 to the coverage count of every element of `b` (row-major over `shape`).
void Cover(const std::vector<int64_t>& shape, const Block& b, std::vector<int>& counts) {
  const size_t nd = shape.size();
  for (size_t d = 0; d < nd; ++d)
    if (b.shape[d] == 0) return;
  std::vector<int64_t> i(nd, 0);
  while (true) {
    int64_t flat = 0;
    for (size_t d = 0; d < nd; ++d) flat = flat * shape[d] + b.offset[d] + i[d];
    ++counts[static_cast<size_t>(flat)];
    size_t d = nd;
    while (d > 0 && ++i[d - 1] == b.shape[d - 1]) i[--d] = 0;
    if (d == 0) return;
  }
}

int32_t RankOfIndex(const Case& c, int64_t index) {
  return c.ranks ? (*c.ranks)[index] : static_cast<int32_t>(index);
}

void CheckBlocksAgainstReference(const Case& c, const Layout& layout) {
  for (int64_t i = 0; i < MeshSize(c); ++i) {
    const std::vector<int64_t> coord = CoordOfIndex(c, i);
    const Block got = testing::BlockOf(layout, RankOfIndex(c, i));
    ASSERT_EQ(got, ExpectedBlock(c, coord)) << "mesh index " << i;
    for (size_t d = 0; d < c.shape.size(); ++d) {
      EXPECT_LE(got.offset[d] + got.shape[d], c.shape[d]);
      if (got.shape[d] == 0) {
        EXPECT_EQ(got.offset[d], c.shape[d]) << "empty piece, dim " << d;
      }
    }
  }
}

// Groups mesh indices by their coordinates on the Replicate/Partial dims (one group per
// replica: within it every shard coordinate appears once) and by their shard coordinates.
void CheckTilingAndReplicas(const Case& c, const Layout& layout) {
  std::map<std::vector<int64_t>, std::vector<Block>> by_replica;
  std::map<std::vector<int64_t>, Block> by_shard;
  for (int64_t i = 0; i < MeshSize(c); ++i) {
    const std::vector<int64_t> coord = CoordOfIndex(c, i);
    std::vector<int64_t> replica_key, shard_key;
    for (size_t m = 0; m < coord.size(); ++m)
      (IsShard(c.placements[m]) ? shard_key : replica_key).push_back(coord[m]);
    const Block b = testing::BlockOf(layout, RankOfIndex(c, i));
    by_replica[replica_key].push_back(b);
    const auto [it, fresh] = by_shard.emplace(shard_key, b);
    if (!fresh) {
      ASSERT_EQ(it->second, b) << "replicas disagree, mesh index " << i;
    }
  }
  const int64_t numel = layout.num_elements();
  for (const auto& [key, blocks] : by_replica) {
    int64_t volume = 0;
    for (const Block& b : blocks)
      volume += std::accumulate(b.shape.begin(), b.shape.end(), int64_t{1}, std::multiplies<>());
    ASSERT_EQ(volume, numel) << "blocks of a replica group do not add up";
    std::vector<int> counts(static_cast<size_t>(numel), 0);
    for (const Block& b : blocks) Cover(c.shape, b, counts);
    ASSERT_TRUE(std::all_of(counts.begin(), counts.end(), [](int n) { return n == 1; }))
        << "blocks overlap or leave a gap";
  }
}

void CheckOutsideRanks(const Case& c, const Layout& layout) {
  if (!c.ranks) {
    EXPECT_EQ(testing::BlockOf(layout, c.world),
              (Block{std::vector<int64_t>(c.shape.size()), c.shape}));
    return;
  }
  for (int32_t r = 0; r < c.world; ++r) {
    if (std::find(c.ranks->begin(), c.ranks->end(), r) != c.ranks->end()) continue;
    EXPECT_EQ(testing::BlockOf(layout, r), (Block{std::vector<int64_t>(c.shape.size()), c.shape}))
        << "rank " << r << " is outside the mesh";
  }
}

// Giving every resolved split explicitly must produce the same (canonical) layout.
void CheckResolvedSplitsRoundTrip(const Case& c, const LayoutPtr& layout, const MeshPtr& mesh) {
  Splits resolved;
  for (int32_t d = 0; d < layout->ndim(); ++d) resolved.emplace_back(layout->ResolvedSizes(d));
  const LayoutPtr again = testing::MakeLayout(mesh, c.shape, c.placements, resolved);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->SameAs(*layout));
  for (int32_t d = 0; d < layout->ndim(); ++d)
    EXPECT_EQ(again->split(d).is_explicit(), layout->split(d).is_explicit()) << "dim " << d;
}

std::string Describe(const Case& c, uint64_t seed) {
  std::string s = "WEFT_PROPERTY_SEED=" + std::to_string(seed) + " reproduces: mesh";
  for (int64_t e : c.mesh_shape) s += " " + std::to_string(e);
  s += c.ranks ? " (explicit ranks), shape" : ", shape";
  for (int64_t e : c.shape) s += " " + std::to_string(e);
  s += ", placements";
  for (const Placement& p : c.placements) s += " " + PlacementName(p);
  for (size_t d = 0; d < c.splits.size(); ++d) {
    if (!c.splits[d]) continue;
    s += ", split " + std::to_string(d) + ":";
    for (int64_t v : *c.splits[d]) s += " " + std::to_string(v);
  }
  return s;
}

uint64_t BaseSeed() {
  const char* env = std::getenv("WEFT_PROPERTY_SEED");
  return env ? std::strtoull(env, nullptr, 0) : kDefaultSeed;
}

TEST(LayoutPropertyTest, RandomLayoutsTileTheTensor) {
  const uint64_t base = BaseSeed();
  for (int i = 0; i < kCases; ++i) {
    const uint64_t seed = base + static_cast<uint64_t>(i);
    std::mt19937_64 rng(seed);
    const Case c = RandomCase(rng);
    SCOPED_TRACE(Describe(c, seed));
    const MeshPtr mesh = testing::MakeMesh(c.mesh_shape, c.ranks);
    ASSERT_TRUE(mesh);
    const LayoutPtr layout = testing::MakeLayout(mesh, c.shape, c.placements, c.splits);
    ASSERT_TRUE(layout);
    ASSERT_NO_FATAL_FAILURE(CheckBlocksAgainstReference(c, *layout));
    ASSERT_NO_FATAL_FAILURE(CheckTilingAndReplicas(c, *layout));
    ASSERT_NO_FATAL_FAILURE(CheckOutsideRanks(c, *layout));
    ASSERT_NO_FATAL_FAILURE(CheckResolvedSplitsRoundTrip(c, layout, mesh));
  }
}

}  // namespace
}  // namespace weft::placement
