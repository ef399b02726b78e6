// What the planner produces: a sequence of steps from one layout to another over one mesh,
// and its per-rank view (which boxes this rank sends, receives and keeps in each step).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.hpp"
#include "placement/layout.hpp"
#include "placement/planner/box.hpp"

namespace weft::placement::planner {

enum class StepKind : int32_t {
  kLocal,          // no communication: a slice (R->S) or a Partial conjugate (R->P, S->P)
  kAllGather,      // one mesh dim: S(d)->R
  kAllToAll,       // one mesh dim: S(a)->S(b), or S(d)->S(d) rebalancing
  kExchange,       // intersection exchange (all-to-all-v) over the groups of mesh dims G
  kAllReduce,      // one mesh dim: P(op)->R
  kReduceScatter,  // one mesh dim: P(op)->S(d)
};

const char* StepKindName(StepKind kind);

struct Step {
  StepKind kind = StepKind::kLocal;
  std::vector<int32_t> mesh_dims;  // G, ascending; empty only for slices
  LayoutPtr from, to;              // to of step k is from of step k+1
  ReduceOp op = ReduceOp::kSum;    // reductions and conjugates
  bool conjugate = false;          // a kLocal step that makes a mesh dim Partial
  int32_t tensor_dim = -1;         // gathered / scattered tensor dim, where meaningful
  double cost = 0;                 // model estimate, seconds
};

struct Plan {
  LayoutPtr src, dst;
  std::vector<Step> steps;  // empty: src and dst hold the same blocks (a plain local copy)
  double cost = 0;
  uint64_t hash = 0;  // FNV-1a of the canonical steps; equal plans hash equal on every rank
};

// One rank's part of a step. Members are indices into `group`.
struct Transfer {
  int64_t member = 0;
  Box box;
};

struct RankStep {
  std::vector<int32_t> group;  // world ranks, row-major over the step's mesh dims; empty: local
  int64_t self_index = -1;
  Box from_block, to_block;
  // Data movement: the boxes that travel (never empty, never to self), by member order.
  // Reductions: each member's contribution (reduce-scatter: the part of the sender's block
  // that the receiver owns; all-reduce: the whole block), not the wire traffic.
  std::vector<Transfer> sends, recvs;
  // The part of from_block copied into to_block; the rest of to_block is received, or for a
  // conjugate filled with the identity of the step's op.
  std::optional<Box> keep;
  int64_t send_bytes = 0, recv_bytes = 0;  // remote bytes, as the collective moves them
};

// Sums over a plan's steps for one rank.
struct RankStats {
  int64_t steps = 0;
  int64_t send_bytes = 0, recv_bytes = 0;
  int64_t extra_bytes = 0;  // largest intermediate block the executor must hold
};

uint64_t HashPlan(const Plan& plan);
// One line per step: kind, mesh dims, placements from -> to, and `rank`'s bytes.
std::string Describe(const Plan& plan, int32_t rank);

}  // namespace weft::placement::planner
