// Search states: one placement per mesh dim plus a split per tensor dim, each with its Layout.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"

namespace weft::placement::planner {

// What a state is, independent of the pair being planned (StateCache shares it across plans).
struct StateInfo {
  LayoutPtr layout;  // size-1 mesh dims hold R (they never matter)
  // Asked for every edge, so computed once here: EncodePlacement per mesh dim; per tensor dim,
  // the mask of the mesh dims of extent > 1 sharding it (ascending order is implied); and the
  // blocks at SampleCoords.
  std::array<int32_t, kMaxMeshDims> codes{};
  std::array<uint32_t, kMaxTensorDims> sharding{};
  uint32_t explicit_dims = 0;  // bit d: tensor dim d has an explicit split
  uint32_t partial = 0;        // bit m: mesh dim m is Partial
  uint32_t wide = 0;           // bit m: mesh dim m has extent > 1
  SampleBlocks samples;

  const std::vector<Placement>& placements() const { return layout->placements(); }
};

struct State {
  std::shared_ptr<const StateInfo> info;
  // Which of the split choices per tensor dim the state took; empty when every split is the
  // chunk rule (the only choice). The key (info->codes, picks) is a fixed total order of the
  // states for tie-breaks.
  std::vector<int32_t> picks;

  friend bool KeyLess(const State& a, const State& b) {
    if (a.info->codes != b.info->codes) return a.info->codes < b.info->codes;
    return a.picks < b.picks;
  }
};

// Per tensor dim: nullopt = chunk, else explicit piece sizes (as in Layout::Spec).
using SplitChoice = std::optional<std::vector<int64_t>>;

// The state of `layout` (its blocks taken at `samples`).
std::shared_ptr<const StateInfo> MakeStateInfo(const LayoutPtr& layout,
                                               std::span<const Coord> samples);

// Built states by (mesh, shape, dtype, placements, splits), shared across plans: the rules
// engine plans many pairs of layouts of one tensor (every candidate strategy of every input),
// and most of their search states coincide. Bounded (cleared when full); not thread-safe.
class StateCache {
 public:
  struct Entry {
    std::vector<Placement> placements;
    std::vector<SplitChoice> splits;
    std::shared_ptr<const StateInfo> info;  // null: not a valid layout
  };
  // The states of one tensor: its mesh (by identity, so kept alive), shape and dtype.
  struct Tensor {
    MeshPtr mesh;
    std::vector<Coord> samples;  // SampleCoords(*mesh)
    std::vector<int64_t> shape;
    DType dtype;
    std::unordered_map<uint64_t, std::vector<Entry>> states;
    // Chunk-split states by their placements packed into one integer (ChunkKey): the common
    // case, found without hashing or comparing vectors.
    std::unordered_map<uint64_t, std::shared_ptr<const StateInfo>> chunk;
  };

  // The tensor of `mesh`, `shape` and `dtype` (or `like`'s). Valid until the next call of Of
  // (which may clear the cache).
  Tensor& Of(const MeshPtr& mesh, const std::vector<int64_t>& shape, DType dtype);
  Tensor& Of(const Layout& like) { return Of(like.mesh_ptr(), like.shape(), like.dtype()); }
  // The state of tensor `t` with placements `ps` and `splits`, built on first use.
  std::shared_ptr<const StateInfo> Get(Tensor& t, const std::vector<Placement>& ps,
                                       const std::vector<SplitChoice>& splits,
                                       std::span<const Coord> samples);

  static constexpr size_t kMaxEntries = 4096;

 private:
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<Tensor>>> tensors_;
  size_t size_ = 0;  // entries over all tensors
};

// ShardingDims as a bit mask (bit m: mesh dim m).
uint32_t ShardingMask(const Layout& layout, int32_t d);

// The mesh dims of extent > 1 sharding tensor dim `d` in `layout`, ascending.
std::vector<int32_t> ShardingDims(const Layout& layout, int32_t d);

// Every valid state of the search between `src` and `dst` (same mesh, shape, dtype): per mesh
// dim of extent > 1 the placements {src, dst, R}; per tensor dim the split of src or dst when
// its sharding dims match theirs, else chunk. Index 0 is src, `*dst_index` is dst (both with
// size-1 mesh dims normalised to R).
// Built states come from `cache` when given.
Result<std::vector<State>> EnumerateStates(const Layout& src, const Layout& dst, int32_t* dst_index,
                                           StateCache* cache = nullptr);

// The piece sizes of tensor dim `d` at the level of the first `outer` mesh dims sharding it
// (row-major over their coordinates): what stays fixed when only inner dims change.
std::vector<int64_t> OuterPieces(const Layout& layout, int32_t d, size_t outer);

}  // namespace weft::placement::planner
