// What the C API runs a plan through, whatever its shape: one redistribute or a batch on one
// mesh (BatchExecutor), or a redistribute between two meshes of a context (CrossExecutor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/executor/executor.hpp"

namespace weft::placement::executor {

struct BatchWorkspace {
  std::vector<Workspace> parts;  // per tensor: its intermediate buffers (and its own staging)
  device::Workspace send, recv;  // combined pieces (fused steps, cross-mesh exchanges)
};

class Runnable {
 public:
  virtual ~Runnable() = default;
  virtual size_t size() const = 0;  // tensors
  virtual int32_t rank() const = 0;
  virtual const void* context() const = 0;  // null: abstract mesh
  // Whether this rank passes tensor i's source block (it is in the source mesh) and its
  // destination block; a rank that takes neither does nothing.
  virtual bool takes_in() const = 0;
  virtual bool takes_out() const = 0;
  virtual const Layout& src(size_t i) const = 0;
  virtual const Layout& dst(size_t i) const = 0;
  virtual Result<planner::RankStats> Stats() const = 0;
  virtual std::string Describe() const = 0;
  // SPEC §6.4: one all-reduce of a fingerprint over the ranks involved.
  virtual Status CheckSamePlan(const GroupFn& groups, const backends::OpArgs& args) const = 0;
  // in[i] / out[i]: tensor i's blocks (ignored where this rank does not take them).
  virtual Status Run(const std::vector<TensorView>& in, const std::vector<TensorView>& out,
                     BatchWorkspace& ws, const GroupFn& groups,
                     const backends::OpArgs& args) const = 0;
};

}  // namespace weft::placement::executor
