#include "placement/halo/exec/halo_runnable.hpp"

#include <utility>

#include "placement/halo/exec/halo_executor.hpp"

namespace weft::placement::halo {

using executor::Call;
using Form = executor::Call::Form;

HaloRunnable::HaloRunnable(std::shared_ptr<const HaloPlan> plan)
    : plan_(std::move(plan)), ranks_(plan_->MeshRanks()) {}

Result<planner::RankStats> HaloRunnable::Stats() const {
  const HaloStats h = plan_->Stats();
  planner::RankStats s;
  s.steps = h.phases;
  s.send_bytes = h.send_bytes;
  s.recv_bytes = h.recv_bytes;
  s.extra_bytes = h.extra_bytes;
  return s;
}

Status HaloRunnable::Admit(const Call& call) const {
  if (call.form == Form::kInPlace && !plan_->windows_contain_owned())
    return InvalidUsage(
        "the in-place exchange needs every rank's window to contain its owned range, and this "
        "plan has a window that does not (use weft_halo_exchange)");
  return Status::Ok();
}

executor::Operands HaloRunnable::Expect(const Call& call) const {
  const std::string me = "rank " + std::to_string(plan_->rank()) + "'s ";
  const DType dt = plan_->layout().dtype();
  const executor::Operand local{"local", dt, plan_->owned(), me + "local block"};
  const executor::Operand padded{"padded", dt, plan_->window(), me + "padded block"};
  executor::Operands ops;
  ops.mixed_devices = "the two buffers are on different devices";
  switch (call.form) {
    case Form::kForward:
      ops.in = {local};
      ops.out = {padded};
      ops.overlap_note = " (use weft_halo_exchange_inplace)";
      break;
    case Form::kInPlace:
      ops.in = {std::nullopt};
      ops.out = {padded};
      break;
    case Form::kAdjoint:
      ops.in = {executor::Operand{"padded_grad", dt, padded.block, padded.what}};
      ops.out = {executor::Operand{"local_grad", dt, local.block, local.what}};
      break;
  }
  return ops;
}

Result<backends::Communicator*> HaloRunnable::Comm(const executor::GroupFn& groups) const {
  if (ranks_.size() <= 1) return nullptr;
  return groups(ranks_);
}

Status HaloRunnable::CheckSamePlan(const executor::GroupFn& groups,
                                   const backends::OpArgs& args) const {
  WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, Comm(groups));
  return CheckSameHalo(*plan_, comm, args);
}

Status HaloRunnable::Run(const Call& call, const std::vector<executor::TensorView>& in,
                         const std::vector<executor::TensorView>& out, executor::BatchWorkspace& ws,
                         const executor::GroupFn& groups, const backends::OpArgs& args) const {
  if (in.size() != 1 || out.size() != 1)
    return Internal("halo: a plan ran with the wrong number of buffers");
  WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, Comm(groups));
  switch (call.form) {
    case Form::kForward:
      return RunExchange(*plan_, &in[0], out[0], ws, comm, args);
    case Form::kInPlace:
      return RunExchange(*plan_, nullptr, out[0], ws, comm, args);
    case Form::kAdjoint:
      return RunAccumulate(*plan_, in[0], out[0], call.add, ws, comm, args);
  }
  return Internal("halo: unknown call form");
}

}  // namespace weft::placement::halo
