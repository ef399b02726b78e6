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

// SPEC §3.2's byte bound evaluated over every rank of a plan (pairs without Partial), in
// bytes. A rank's bound is what its dst block lacks of its src block (|dst \ src|), twice that
// in a plan of several steps.
struct ByteBound {
  // false: not evaluated (it would take more than kByteBoundMaxWork); the rest is unset.
  bool checked = false;
  // Coordinates the bound covers: the product of the extents of the mesh dims some layout of
  // the plan shards (ranks differing only elsewhere hold the same blocks).
  int64_t ranks = 0;
  // Per-rank evaluations the check took: fewer than `ranks` where it combined the distinct
  // values of independent groups of tensor dims.
  int64_t work = 0;
  int64_t excess = 0;          // the largest (received - bound) over the ranks; 0: all within
  int32_t rank = -1;           // the first world rank (row-major) with that excess
  int64_t recv = 0, lack = 0;  // that rank's received bytes and |dst \ src|
  int32_t idle_rank = -1;      // the first rank (row-major) that lacks nothing yet receives
  int64_t idle_recv = 0;
  bool within() const { return checked && excess == 0; }
};

// How a plan of a pair without Partial relates to the byte bound when the model's cheapest
// plan does not meet it (Describe prints it): kept past the bound (kExceeds), or declined for
// the one-step plan that meets it (kDeclined: it exceeds the bound past the cap, or sends to a
// rank that lacks nothing; kUnchecked: too many ranks to check it).
struct BoundNote {
  enum class Kind : int32_t { kNone, kExceeds, kDeclined, kUnchecked };
  Kind kind = Kind::kNone;
  ByteBound bound;        // the exceeding plan's: this plan's (kExceeds) or the declined one's
  std::string other;      // the other plan's steps, short ("all-gather [0], local [1]")
  double other_cost = 0;  // the model's seconds for the other plan
  int64_t messages = 0, other_messages = 0;  // messages per rank under the model
};

struct Plan {
  LayoutPtr src, dst;
  std::vector<Step> steps;  // empty: src and dst hold the same blocks (a plain local copy)
  double cost = 0;
  uint64_t hash = 0;            // FNV-1a of the canonical steps and the cap; equal on every rank
  int64_t extra_bytes_cap = 0;  // bytes per rank a plan may exceed the byte bound by
  BoundNote bound_note;
  std::string model_source;  // the cost model's figures (CostModel::source), for Describe
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
// The steps in short: "all-gather [0], local [1]" (kind and mesh dims of each).
std::string Summary(const std::vector<Step>& steps);
// One line per step: kind, mesh dims, placements from -> to, and `rank`'s bytes; then, when
// the plan is not the model's cheapest or exceeds SPEC §3.2's byte bound, a line saying why.
std::string Describe(const Plan& plan, int32_t rank);

}  // namespace weft::placement::planner
