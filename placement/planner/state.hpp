// Search states: one placement per mesh dim plus a split per tensor dim, each with its Layout.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "placement/layout.hpp"

namespace weft::placement::planner {

struct State {
  std::vector<Placement> placements;  // size-1 mesh dims hold R (they never matter)
  LayoutPtr layout;
  std::vector<int32_t> key;  // small-int encoding: a fixed total order for tie-breaks
};

// The mesh dims of extent > 1 sharding tensor dim `d` in `layout`, ascending.
std::vector<int32_t> ShardingDims(const Layout& layout, int32_t d);

// Every valid state of the search between `src` and `dst` (same mesh, shape, dtype): per mesh
// dim of extent > 1 the placements {src, dst, R}; per tensor dim the split of src or dst when
// its sharding dims match theirs, else chunk. Index 0 is src, `*dst_index` is dst (both with
// size-1 mesh dims normalised to R).
Result<std::vector<State>> EnumerateStates(const Layout& src, const Layout& dst,
                                           int32_t* dst_index);

// The piece sizes of tensor dim `d` at the level of the first `outer` mesh dims sharding it
// (row-major over their coordinates): what stays fixed when only inner dims change.
std::vector<int64_t> OuterPieces(const Layout& layout, int32_t d, size_t outer);

}  // namespace weft::placement::planner
