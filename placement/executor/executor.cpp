#include "placement/executor/executor.hpp"

#include <algorithm>
#include <string>

#include "common/fnv1a.hpp"
#include "placement/executor/pairwise.hpp"
#include "placement/planner/localize.hpp"

namespace weft::placement::executor {
namespace {}  // namespace

Result<std::shared_ptr<const Executor>> Executor::Create(planner::Plan plan, int32_t rank) {
  std::shared_ptr<Executor> e(new Executor());
  Coord c{};
  e->in_mesh_ = rank >= 0 && plan.src->mesh().Coordinate(rank, c.data());
  e->rank_ = rank;
  WEFT_ASSIGN_OR_RETURN(e->steps_, planner::Localize(plan, rank));
  // The plan hash covers the steps; the layouts' descriptions add the splits and the mesh, so
  // two ranks that asked for different (even equally planned) redistributes disagree; and the
  // all-to-all chunk size, which sets how many messages each piece takes.
  const std::string layouts = plan.src->Describe() + "\n->\n" + plan.dst->Describe();
  WEFT_ASSIGN_OR_RETURN(const int64_t chunk, AlltoallChunkBytes());
  e->fingerprint_ = Fnv1a().Int(static_cast<int64_t>(plan.hash)).Int(chunk).Text(layouts).value();
  // Plan-owned memory with compact user buffers: the two intermediate buffers and the staging
  // buffers at their largest (data pointers are not needed to decide what gets packed).
  const int64_t item = ItemSize(plan.src->dtype());
  int64_t inter[2] = {0, 0}, staged = 0;
  const size_t n = e->steps_.size();
  for (size_t k = 0; e->in_mesh_ && k < n; ++k) {
    const planner::RankStep& rs = e->steps_[k];
    const TensorView from = CompactView(nullptr, rs.from_block, item);
    const TensorView to = CompactView(nullptr, rs.to_block, item);
    if (k + 1 < n) inter[k % 2] = std::max(inter[k % 2], rs.to_block.Volume() * item);
    staged = std::max(staged, StagedBytes(plan.steps[k], rs, from, to));
  }
  e->extra_bytes_ = inter[0] + inter[1] + staged;
  e->plan_ = std::move(plan);
  return std::shared_ptr<const Executor>(std::move(e));
}

Status Executor::CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const {
  const Mesh& mesh = plan_.src->mesh();
  if (!in_mesh_ || mesh.size() == 1) return Status::Ok();
  std::vector<int32_t> ranks(static_cast<size_t>(mesh.size()));
  for (int64_t i = 0; i < mesh.size(); ++i) ranks[static_cast<size_t>(i)] = mesh.RankAtIndex(i);
  WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, groups(ranks));
  // max(h) and max(~h) = ~min(h): all equal iff both come back unchanged.
  uint64_t v[2] = {fingerprint_, ~fingerprint_};
  WEFT_RETURN_IF_ERROR(
      comm->Allreduce(v, v, 2, DType{kCodeUInt, 64, 1}, ReduceOp::kMax, args.ForHostMemory()));
  if (v[0] != fingerprint_ || v[1] != ~fingerprint_)
    return InvalidUsage(
        "the ranks of the mesh built different redistribute plans (their src/dst layouts or "
        "plans differ); every rank must plan the same redistribute");
  return Status::Ok();
}

Status Executor::Run(const TensorView* in, const TensorView* out, Workspace& ws,
                     const GroupFn& groups, const backends::OpArgs& args) const {
  if (!in_mesh_) return Status::Ok();
  if (!in || !out) return Internal("redistribute: a mesh rank ran without buffers");
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(args.device, args.stream));
  if (steps_.empty()) return CopyBox(q, *in, *out, in->block);  // src and dst: the same blocks
  const int64_t item = in->item;
  TensorView from = *in;
  for (size_t k = 0; k < steps_.size(); ++k) {
    const planner::RankStep& rs = steps_[k];
    TensorView to = *out;
    if (k + 1 < steps_.size()) {
      const auto bytes = static_cast<size_t>(rs.to_block.Volume() * item);
      WEFT_ASSIGN_OR_RETURN(char* buf, q.Reserve(ws.inter[k % 2], bytes));
      to = CompactView(buf, rs.to_block, item);
    }
    backends::Communicator* comm = nullptr;
    if (!rs.group.empty()) {
      WEFT_ASSIGN_OR_RETURN(comm, groups(rs.group));
    }
    WEFT_RETURN_IF_ERROR(RunStep(plan_.steps[k], rs, from, to, ws, q, comm, args));
    from = to;
  }
  return Status::Ok();
}

}  // namespace weft::placement::executor
