#include "ops/engine/estimate.hpp"

#include <variant>

namespace weft::ops {

double DimEstimate(const placement::planner::CostModel& model, const placement::Layout& in,
                   int32_t mesh_dim, const PlacementCode& to) {
  using Kind = PlacementCode::Kind;
  const placement::Placement& from = in.placements()[static_cast<size_t>(mesh_dim)];
  // The input's bytes per rank: its shards divide it, replicas and partials do not.
  double bytes = static_cast<double>(in.num_elements()) * static_cast<double>(ItemSize(in.dtype()));
  for (int32_t m = 0; m < in.mesh().ndim(); ++m)
    if (placement::IsShard(in.placements()[static_cast<size_t>(m)]))
      bytes /= static_cast<double>(in.mesh().shape()[m]);
  const double n = static_cast<double>(in.mesh().shape()[mesh_dim]);
  const placement::planner::LinkCost link = model.Link(mesh_dim);
  const double local = model.copy_beta * bytes;
  if (const auto* p = std::get_if<placement::Partial>(&from)) {
    if (to.kind == Kind::kPartial) return to.op == p->op ? 0 : kNoMove;
    const double rs = (n - 1) * link.alpha + (n - 1) / n * (link.beta + model.reduce_beta) * bytes;
    return to.kind == Kind::kShard ? rs : 2 * rs;  // all-reduce: reduce-scatter + all-gather
  }
  if (const auto* s = std::get_if<placement::Shard>(&from)) {
    switch (to.kind) {
      case Kind::kShard:
        return to.dim == s->dim ? 0 : (n - 1) * link.alpha + (n - 1) / n * link.beta * bytes;
      case Kind::kReplicate:
        return (n - 1) * link.alpha + (n - 1) * link.beta * bytes;
      case Kind::kPartial:  // never chosen: see ShardToPartial in engine.cpp
        return kNoMove;
    }
  }
  return to.kind == Kind::kReplicate ? 0 : local;  // from R: a slice or a conjugate
}

}  // namespace weft::ops
