// Who writes what (pure, the same on every rank, no communication): a layout's blocks that
// several ranks hold (replicated over some mesh dims) are written once, by one holder, and the
// holders take turns block by block and tensor by tensor so that writers share the load.
#pragma once

#include <cstdint>
#include <vector>

#include "checkpoint/index.hpp"
#include "placement/layout.hpp"

namespace weft::checkpoint {

// Whether the rank at mesh coordinate `coord` writes its block of the `tensor`-th tensor of a
// save. The layout must hold no Partial (those are reduced first).
bool IsWriter(const placement::Layout& layout, const int64_t* coord, int64_t tensor);

struct PlannedBox {
  int32_t rank = 0;  // the writer (a world rank)
  Box box;
};
// Every non-empty block of the layout with its writer, in mesh order: O(mesh size).
std::vector<PlannedBox> PlanBoxes(const placement::Layout& layout, int64_t tensor);

// The block of world rank `rank` as a box (empty outside the mesh).
Box BlockOf(const placement::Layout& layout, int32_t rank);

// The layout's grid: per tensor dim, the sizes of its pieces in order (one piece, the
// extent, for a dim no mesh dim shards).
std::vector<std::vector<int64_t>> Pieces(const placement::Layout& layout);

}  // namespace weft::checkpoint
