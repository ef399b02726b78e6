#include "ops/engine/op_comm.hpp"

#include <utility>
#include <vector>

#include "placement/planner/plan.hpp"

namespace weft::ops {

using placement::Layout;
using placement::LayoutPtr;
using placement::Placement;

Result<double> OpCommCost(const placement::planner::CostModel& model, const Layout& t,
                          int32_t mesh_dim, const OpComm& comm) {
  const bool gather = comm.kind == OpComm::Kind::kAllGather;
  // The message: t's block with comm.dim collapsed (no mesh dim cuts it any more) and `width`
  // elements each (a trailing dim). An all-gather's message has one piece per rank of the
  // group along comm.dim, sharded by mesh_dim before the step and replicated after.
  Layout::Spec spec{t.mesh_ptr(), t.shape(), t.dtype(), t.placements(), {}};
  spec.shape[static_cast<size_t>(comm.dim)] = gather ? t.mesh().shape()[mesh_dim] : 1;
  spec.shape.push_back(comm.width);
  for (Placement& p : spec.placements)
    if (const auto* s = std::get_if<placement::Shard>(&p); s && s->dim == comm.dim)
      p = placement::Replicate{};
  for (int32_t d = 0; d < t.ndim(); ++d)
    spec.splits.push_back(d != comm.dim && t.split(d).is_explicit()
                              ? std::optional<std::vector<int64_t>>(t.ResolvedSizes(d))
                              : std::nullopt);
  spec.splits.emplace_back(std::nullopt);
  Layout::Spec after = spec;
  if (gather) spec.placements[static_cast<size_t>(mesh_dim)] = placement::Shard{comm.dim};
  WEFT_ASSIGN_OR_RETURN(LayoutPtr from, Layout::Create(std::move(spec)));
  WEFT_ASSIGN_OR_RETURN(LayoutPtr to, Layout::Create(std::move(after)));
  placement::planner::Step step;
  step.kind =
      gather ? placement::planner::StepKind::kAllGather : placement::planner::StepKind::kAllReduce;
  step.mesh_dims = {mesh_dim};
  step.from = from;
  step.to = gather ? to : from;
  step.tensor_dim = comm.dim;
  return placement::planner::StepCost(model, step);
}

}  // namespace weft::ops
