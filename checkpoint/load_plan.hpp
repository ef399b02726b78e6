// What one rank reads at load (pure): for its destination block, the saved boxes that meet it
// (found on the grid, O(boxes touching the block)) and, in each, the byte runs that hold the
// intersection, merged when adjacent. A run is the largest stretch that is contiguous both in
// the box's row-major bytes and in the intersection's row-major order, so the runs read one
// after another fill a packed buffer of the intersection.
#pragma once

#include <cstdint>
#include <vector>

#include "checkpoint/index.hpp"

namespace weft::checkpoint {

struct Run {
  uint64_t offset = 0;  // absolute, in the box's file
  uint64_t nbytes = 0;
};

struct BoxRead {
  int64_t box = 0;     // into IndexTensor::boxes
  Box region;          // the intersection, global coordinates
  bool whole = false;  // the region is the whole box (its checksum can be verified)
  std::vector<Run> runs;
};

std::vector<BoxRead> PlanReads(const IndexTensor& t, const Box& block);

// The runs of `region` (inside `box`, whose row-major bytes start at `base`).
std::vector<Run> RunsOf(const Box& box, const Box& region, int64_t item, uint64_t base);

}  // namespace weft::checkpoint
