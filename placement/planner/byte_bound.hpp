// SPEC §3.2's byte bound for pairs without Partial: in a one-step plan a rank receives exactly
// what its destination block lacks (|dst \ src|), in a longer plan at most twice that, and a
// rank that lacks nothing receives nothing. The planner checks its cheapest plan against it
// over every rank of the mesh (byte_bound.cpp) and keeps a plan past it only when the model
// rates it cheaper and the excess stays under a cap (search.cpp, docs/redistribute.md).
#pragma once

#include <cstdint>

#include "placement/layout.hpp"
#include "placement/planner/plan.hpp"

namespace weft::placement::planner {

// The most per-rank evaluations a check may take; a plan that needs more is not checked
// (ByteBound::checked false) and the planner takes the one-step plan instead.
inline constexpr int64_t kByteBoundMaxWork = int64_t{1} << 18;

// Whether SPEC §3.2's byte bound applies: neither layout is Partial on a mesh dim of extent > 1.
bool ByteBoundApplies(const Layout& src, const Layout& dst);

// Every rank's received bytes against its bound, exactly, for a plan of data movement and
// slices (the plans of pairs the bound applies to). In such a step a rank receives its new
// block minus what it keeps of the old one, so the bytes follow from the blocks alone, as sums
// of products over tensor dims; no group is walked. Mesh dims that no layout shards are not
// enumerated, and once a few mesh dims are fixed the products factor over groups of tensor
// dims whose distinct values are combined instead of every coordinate (a 50x40x50 mesh takes
// a few thousand evaluations, not 100 000).
ByteBound CheckByteBound(const Plan& plan);

}  // namespace weft::placement::planner
