#include "placement/executor/executor_batch.hpp"

#include <algorithm>
#include <string>

#include "common/fnv1a.hpp"
#include "placement/planner/localize.hpp"

namespace weft::placement::executor {
namespace {

// Same kinds, mesh dims and reduction ops step by step: then every step's group is the same
// for every part (one mesh), and the parts can share each collective.
bool SameStructure(const planner::Plan& a, const planner::Plan& b) {
  if (a.steps.size() != b.steps.size()) return false;
  for (size_t k = 0; k < a.steps.size(); ++k) {
    const planner::Step &x = a.steps[k], &y = b.steps[k];
    if (x.kind != y.kind || x.mesh_dims != y.mesh_dims || x.op != y.op) return false;
  }
  return true;
}

}  // namespace

Result<std::shared_ptr<const BatchExecutor>> BatchExecutor::Create(
    std::vector<std::shared_ptr<const Executor>> parts) {
  if (parts.empty()) return InvalidArgument("a batched plan needs at least one tensor");
  std::shared_ptr<BatchExecutor> b(new BatchExecutor());
  const Mesh& mesh = parts[0]->plan().src->mesh();
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parts[i]->plan().src->mesh().SameAs(mesh))
      return InvalidArgument("batched pair " + std::to_string(i) +
                             " is on another mesh than pair 0: a batched plan runs on one mesh");
  b->fused_ = parts.size() > 1;
  for (size_t i = 1; i < parts.size(); ++i)
    b->fused_ = b->fused_ && SameStructure(parts[0]->plan(), parts[i]->plan());
  Fnv1a h;
  h.Int(static_cast<int64_t>(parts.size())).Int(b->fused_ ? 1 : 0);
  for (const auto& p : parts) h.Int(static_cast<int64_t>(p->fingerprint()));
  b->fingerprint_ = parts.size() == 1 ? parts[0]->fingerprint() : h.value();
  // Every part's own memory (intermediates and, unfused, staging) plus, fused, the largest
  // combined staging of a step: an upper bound when fused, since the parts' own staging then
  // goes unused.
  for (const auto& p : parts) b->extra_bytes_ += p->extra_bytes();
  b->parts_ = std::move(parts);
  if (b->fused_ && b->in_mesh()) {
    int64_t staged = 0;
    for (size_t k = 0; k < b->parts_[0]->steps().size(); ++k)
      staged = std::max(staged, FusedStagedBytes(b->parts_, k));
    b->extra_bytes_ += staged;
  }
  return std::shared_ptr<const BatchExecutor>(std::move(b));
}

Result<planner::RankStats> BatchExecutor::Stats() const {
  planner::RankStats total;
  for (const auto& p : parts_) {
    WEFT_ASSIGN_OR_RETURN(planner::RankStats s, planner::Stats(p->plan(), p->rank()));
    total.steps += s.steps;
    total.send_bytes += s.send_bytes;
    total.recv_bytes += s.recv_bytes;
  }
  if (fused_) total.steps = static_cast<int64_t>(parts_[0]->plan().steps.size());
  total.extra_bytes = extra_bytes_;
  return total;
}

std::string BatchExecutor::Describe() const {
  if (parts_.size() == 1) return planner::Describe(parts_[0]->plan(), rank());
  std::string s = "batched: " + std::to_string(parts_.size()) + " tensors, " +
                  (fused_ ? "fused (one collective per step and dtype)"
                          : "not fused (different step structures: the plans run in turn)") +
                  "\n";
  for (size_t i = 0; i < parts_.size(); ++i)
    s += "tensor " + std::to_string(i) + ":\n" + planner::Describe(parts_[i]->plan(), rank());
  return s;
}

Status BatchExecutor::CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const {
  if (parts_.size() == 1) return parts_[0]->CheckSamePlan(groups, args);
  const Mesh& mesh = parts_[0]->plan().src->mesh();
  if (!in_mesh() || mesh.size() == 1) return Status::Ok();
  std::vector<int32_t> ranks(static_cast<size_t>(mesh.size()));
  for (int64_t i = 0; i < mesh.size(); ++i) ranks[static_cast<size_t>(i)] = mesh.RankAtIndex(i);
  WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, groups(ranks));
  uint64_t v[2] = {fingerprint_, ~fingerprint_};  // max(h) and ~min(h), as Executor does
  WEFT_RETURN_IF_ERROR(
      comm->Allreduce(v, v, 2, DType{kCodeUInt, 64, 1}, ReduceOp::kMax, args.ForHostMemory()));
  if (v[0] != fingerprint_ || v[1] != ~fingerprint_)
    return InvalidUsage(
        "the ranks of the mesh built different batched redistribute plans (their layout pairs "
        "or plans differ); every rank must plan the same batch");
  return Status::Ok();
}

// One form: `call` asks nothing more.
Status BatchExecutor::Run(const Call&, const std::vector<TensorView>& in,
                          const std::vector<TensorView>& out, BatchWorkspace& ws,
                          const GroupFn& groups, const backends::OpArgs& args) const {
  if (!in_mesh()) return Status::Ok();
  if (in.size() != parts_.size() || out.size() != parts_.size())
    return Internal("redistribute: a batched plan ran with the wrong number of buffers");
  if (ws.parts.size() < parts_.size()) ws.parts.resize(parts_.size());
  if (fused_) {
    WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(args.device, args.stream));
    return RunFused(in, out, ws, q, groups, args);
  }
  for (size_t i = 0; i < parts_.size(); ++i)
    WEFT_RETURN_IF_ERROR(parts_[i]->Run(&in[i], &out[i], ws.parts[i], groups, args));
  return Status::Ok();
}

Status BatchExecutor::RunFused(const std::vector<TensorView>& in,
                               const std::vector<TensorView>& out, BatchWorkspace& ws,
                               const device::Queue& q, const GroupFn& groups,
                               const backends::OpArgs& args) const {
  const size_t n = parts_.size(), steps = parts_[0]->steps().size();
  if (steps == 0) {
    for (size_t i = 0; i < n; ++i) WEFT_RETURN_IF_ERROR(CopyBox(q, in[i], out[i], in[i].block));
    return Status::Ok();
  }
  std::vector<TensorView> from = in, to(n);
  for (size_t k = 0; k < steps; ++k) {
    for (size_t i = 0; i < n; ++i) {
      const planner::RankStep& rs = parts_[i]->steps()[k];
      to[i] = out[i];
      if (k + 1 < steps) {
        const auto bytes = static_cast<size_t>(rs.to_block.Volume() * in[i].item);
        WEFT_ASSIGN_OR_RETURN(char* buf, q.Reserve(ws.parts[i].inter[k % 2], bytes));
        to[i] = CompactView(buf, rs.to_block, in[i].item);
      }
    }
    const planner::RankStep& rs0 = parts_[0]->steps()[k];
    if (rs0.group.empty()) {  // local: each tensor on its own
      for (size_t i = 0; i < n; ++i)
        WEFT_RETURN_IF_ERROR(RunStep(parts_[i]->plan().steps[k], parts_[i]->steps()[k], from[i],
                                     to[i], ws.parts[i], q, nullptr, args));
    } else {
      WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, groups(rs0.group));
      WEFT_RETURN_IF_ERROR(RunFusedStep(parts_, k, from, to, ws, q, *comm, args));
    }
    from = to;
  }
  return Status::Ok();
}

}  // namespace weft::placement::executor
