// The halos a candidate's inputs need (docs/design/rules.md "Windowed operators"): for every
// input with a windowed dim the candidate shards, one halo over all its windowed dims (explicit
// window tables from the operator's index map, the operator's padding as boundary rows), so
// the local kernel always runs unpadded on the padded block; and what the exchange costs under
// the planner's cost model.
#pragma once

#include <span>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/rule.hpp"
#include "placement/halo/halo_spec.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"

namespace weft::ops {

// Per input of the candidate (its layouts), the halo it needs; an input that needs none gets
// a spec with no dims. An input whose windowed dims are all whole needs none: the kernel then
// runs with the operator's own padding.
Result<std::vector<placement::halo::HaloSpec>> InputHalos(
    std::span<const placement::LayoutPtr> inputs, const RuleResult& r);

// Seconds the exchange of `spec` over `layout` takes under `model`: per windowed dim, the
// slowest piece's messages (one per other piece its window reaches) and received bytes, on
// the slowest link of the mesh dims that cut it; summed over the dims (phase by phase).
double HaloCost(const placement::planner::CostModel& model, const placement::Layout& layout,
                const placement::halo::HaloSpec& spec);

}  // namespace weft::ops
