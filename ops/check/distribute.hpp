// The validation harness's data movement on one process (docs/design/rules.md "Validation
// harness"): a global tensor cut into each rank's block by a layout — Partial placements as a
// random exact decomposition — and the blocks of an output put back together, Partials
// reduced and replicas compared. The independent reference the rules are checked against: it
// knows layouts, never rules.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/kernel.hpp"
#include "placement/layout.hpp"

namespace weft::ops::check {

using Rng = std::mt19937_64;

struct RankBlock {
  DenseTensor block;
  std::vector<int64_t> offset;
};

// Every rank's block of `global` (row-major over the mesh's ranks by index 0..size-1). On the
// mesh dims where `layout` is Partial, the ranks that hold the same block share it out so that
// reducing them gives it back exactly for the small integers the harness feeds: sum and avg
// as random integer parts, max and min with one rank holding the value and the others at most
// (at least) it, prod with one rank holding it and the others 1.
std::vector<RankBlock> Distribute(const DenseTensor& global, const placement::Layout& layout,
                                  Rng& rng);

// The global tensor `blocks` (one per rank) make up under `layout`: each block at its offset,
// the ranks of a Partial group reduced with its op, and ranks that must hold the same data
// (they differ only on Replicate mesh dims) compared. `tolerance`: relative, 0 for exact.
// Errors: kInternal naming the first rank whose block has the wrong shape or disagrees.
Result<DenseTensor> Assemble(const std::vector<DenseTensor>& blocks,
                             const placement::Layout& layout, double tolerance);

// Where `got` and `want` differ first ("" when they agree within `tolerance`, relative to the
// largest |want|).
std::string FirstDifference(const DenseTensor& got, const DenseTensor& want, double tolerance);

}  // namespace weft::ops::check
