// A halo plan as the C API runs it (executor::Runnable): the exchange (Call::Form::kForward,
// or kInPlace) and the accumulate (kAdjoint), on the communicator of the plan's mesh.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "placement/executor/runnable.hpp"
#include "placement/halo/halo_plan.hpp"

namespace weft::placement::halo {

class HaloRunnable : public executor::Runnable {
 public:
  explicit HaloRunnable(std::shared_ptr<const HaloPlan> plan);

  const HaloPlan& plan() const { return *plan_; }
  executor::PlanKind kind() const override { return executor::PlanKind::kHalo; }
  size_t size() const override { return 1; }
  int32_t rank() const override { return plan_->rank(); }
  ContextId context() const override { return plan_->layout().mesh().context(); }
  bool takes_in() const override { return plan_->in_mesh(); }
  bool takes_out() const override { return plan_->in_mesh(); }
  Result<planner::RankStats> Stats() const override;
  std::string Describe() const override { return plan_->Describe(); }
  // The in-place form needs every window to contain its owned range: the same verdict on
  // every rank (the plan knows every window), before anything is sent.
  Status Admit(const executor::Call& call) const override;
  // Exchange: local (this rank's owned block) into padded (its window); in place: padded only;
  // accumulate: padded_grad into local_grad.
  executor::Operands Expect(const executor::Call& call) const override;
  Status CheckSamePlan(const executor::GroupFn& groups,
                       const backends::OpArgs& args) const override;
  Status Run(const executor::Call& call, const std::vector<executor::TensorView>& in,
             const std::vector<executor::TensorView>& out, executor::BatchWorkspace& ws,
             const executor::GroupFn& groups, const backends::OpArgs& args) const override;

 private:
  // The mesh's communicator (peer = mesh position); null on a mesh of one rank.
  Result<backends::Communicator*> Comm(const executor::GroupFn& groups) const;

  std::shared_ptr<const HaloPlan> plan_;
  std::vector<int32_t> ranks_;  // the plan's mesh, row-major
};

}  // namespace weft::placement::halo
