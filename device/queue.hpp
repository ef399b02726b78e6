// One device's operations bound to a target (device and stream): what an executor carries
// through a run, so that every step's copies, fills and reductions, and its workspaces, go to
// the memory's own implementation in the order of the caller's stream.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/result.hpp"
#include "device/buffer.hpp"
#include "device/element.hpp"
#include "device/ops.hpp"

namespace weft::device {

class Queue {
 public:
  // The operations for `device` (OpsFor's errors) on `stream`.
  static Result<Queue> For(DLDevice device, Stream stream) {
    WEFT_ASSIGN_OR_RETURN(Ops * ops, OpsFor(device));
    return Queue(*ops, Target{device, stream});
  }
  Queue(Ops& ops, const Target& t) : ops_(&ops), target_(t) {}

  Ops& ops() const { return *ops_; }
  const Target& target() const { return target_; }

  Status Copy(const Region& dst, const ConstRegion& src, const Shape& shape, int64_t item) const {
    return ops_->Copy(target_, dst, src, shape, item);
  }
  Status Fill(const Region& dst, const Shape& shape, const void* element, int64_t item) const {
    return ops_->Fill(target_, dst, shape, element, item);
  }
  // Fill with the identity element of `op` for `t` (SPEC §2.4's conjugates).
  Status FillIdentity(DType t, ReduceOp op, const Region& dst, const Shape& shape) const {
    WEFT_ASSIGN_OR_RETURN(const Element e, IdentityElement(t, op));
    return ops_->Fill(target_, dst, shape, e.data(), ItemSize(t));
  }
  Status Reduce(DType t, ReduceOp op, const Region& inout, const ConstRegion& in,
                const Shape& shape) const {
    return ops_->Reduce(target_, t, op, inout, in, shape);
  }
  Status Widen(DType t, const void* src, void* acc, uint64_t count) const {
    return ops_->Widen(target_, t, src, acc, count);
  }
  Status Narrow(DType t, const void* acc, void* dst, uint64_t count, int64_t divisor) const {
    return ops_->Narrow(target_, t, acc, dst, count, divisor);
  }
  Status ToHost(void* host, const void* src, size_t bytes) const {
    return ops_->ToHost(target_, host, src, bytes);
  }
  Status FromHost(void* dst, const void* host, size_t bytes) const {
    return ops_->FromHost(target_, dst, host, bytes);
  }
  Status Synchronize() const { return ops_->Synchronize(target_); }
  Result<Buffer> Allocate(size_t bytes) const { return Buffer::Allocate(*ops_, target_, bytes); }
  Result<char*> Reserve(Workspace& ws, size_t bytes) const {
    return ws.Reserve(*ops_, target_, bytes);
  }

 private:
  Ops* ops_;
  Target target_;
};

}  // namespace weft::device
