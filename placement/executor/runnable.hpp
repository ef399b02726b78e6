// What the C API runs a plan through, whatever its shape: one redistribute or a batch on one
// mesh (BatchExecutor), a redistribute between two meshes of a context (CrossExecutor), or a
// halo plan (halo::HaloRunnable). The API's execution path (rank, membership and buffer
// checks, the first-execution plan check, the run) is one for all of them: each runnable
// describes the buffers a call passes, and the words its errors use for them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/executor/executor.hpp"

namespace weft::placement::executor {

// Memory one execution reuses across runs, on the buffers' device.
struct BatchWorkspace {
  std::vector<Workspace> parts;  // per tensor: its intermediate buffers (and its own staging)
  device::Workspace send, recv;  // combined pieces (fused steps, cross-mesh exchanges, halos)
  device::Workspace copy;        // a working copy of an input (a halo accumulate's gradient)
};

// The C API's families of plans: each runs through calls of its own.
enum class PlanKind { kRedistribute, kHalo };

// What one call asks of a plan. A redistribute has one form; a halo plan runs forward (out of
// place or in place) or backward (the accumulate, which may add into its output).
struct Call {
  enum class Form { kForward, kInPlace, kAdjoint };
  Form form = Form::kForward;
  bool add = false;  // kAdjoint: add into the output instead of overwriting it
};

// One buffer a call passes: what it must hold, and the words errors use for it.
struct Operand {
  std::string name;  // the argument: "in", "out[2]", "padded_grad"
  DType dtype;
  planner::Box block;  // global indices
  std::string what;    // the block: "rank 3's local block"
};

// The buffers of one call, per tensor: none where this rank passes none (outside the source or
// destination mesh) or the form has none (in place: the output is read too).
struct Operands {
  std::vector<std::optional<Operand>> in, out;
  const char* overlap_note = "";   // why an output may not overlap an input
  const char* mixed_devices = "";  // the error when the buffers are on different devices
};

class Runnable {
 public:
  virtual ~Runnable() = default;
  virtual PlanKind kind() const = 0;
  virtual size_t size() const = 0;  // tensors
  virtual int32_t rank() const = 0;
  virtual ContextId context() const = 0;  // abstract: no context
  // Whether this rank passes tensor i's source block (it is in the source mesh) and its
  // destination block; a rank that takes neither does nothing.
  virtual bool takes_in() const = 0;
  virtual bool takes_out() const = 0;
  virtual Result<planner::RankStats> Stats() const = 0;
  virtual std::string Describe() const = 0;
  // A refusal of `call` that every rank reaches alike, before any buffer is looked at.
  virtual Status Admit(const Call& call) const {
    (void)call;
    return Status::Ok();
  }
  // The buffers `call` passes on this rank (only asked of a rank that takes some).
  virtual Operands Expect(const Call& call) const = 0;
  // SPEC §6.4: one all-reduce of a fingerprint over the ranks involved.
  virtual Status CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const = 0;
  // in[i] / out[i]: tensor i's buffers, as Expect describes them (empty views where it has
  // none).
  virtual Status Run(const Call& call, const std::vector<TensorView>& in,
                     const std::vector<TensorView>& out, BatchWorkspace& ws, const GroupFn& groups,
                     const backends::OpArgs& args) const = 0;
};

// A redistribute: tensor i moves from src(i) to dst(i); a call passes "in" and "out" ("in[i]"
// and "out[i]" in a batch) holding this rank's blocks of them.
class Redistribution : public Runnable {
 public:
  PlanKind kind() const override { return PlanKind::kRedistribute; }
  virtual const Layout& src(size_t i) const = 0;
  virtual const Layout& dst(size_t i) const = 0;
  Operands Expect(const Call& call) const override;
};

}  // namespace weft::placement::executor
