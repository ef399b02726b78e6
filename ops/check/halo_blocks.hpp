// The harness's halo exchange (docs/design/rules.md "Validation harness"): every rank's padded
// block under a halo spec, made from the ranks' blocks — rows from their owners (any number of
// hops away), rows past the edges by the boundary rules of SPEC §4.2. An independent reference:
// it reads the spec's window tables and the layout, never the halo plan.
#pragma once

#include <vector>

#include "ops/check/distribute.hpp"
#include "placement/halo/halo_spec.hpp"
#include "placement/layout.hpp"

namespace weft::ops::check {

// `blocks` holds every rank's block of `layout` (Distribute's answer); the result every rank's
// padded block, its offset the window's origin (negative into the low boundary).
std::vector<RankBlock> PadBlocks(const std::vector<RankBlock>& blocks,
                                 const placement::Layout& layout,
                                 const placement::halo::HaloSpec& spec);

}  // namespace weft::ops::check
