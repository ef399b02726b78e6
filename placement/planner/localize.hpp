// The per-rank view of a plan: what one rank sends, receives and keeps in each step. O(size of
// the step's group) per step, independent of the world size.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "placement/planner/plan.hpp"

namespace weft::placement::planner {

// One RankStep per plan step. A rank outside the mesh gets empty steps (no group, no boxes).
Result<std::vector<RankStep>> Localize(const Plan& plan, int32_t rank);

// Sums over Localize(plan, rank): steps, remote bytes and the largest intermediate block.
Result<RankStats> Stats(const Plan& plan, int32_t rank);

}  // namespace weft::placement::planner
