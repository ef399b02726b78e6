// The host implementation of the device layer: CPU memory and CUDA host (pinned) memory. Every
// operation runs on the calling thread and has completed when it returns; the stream must be
// NULL. Allocation is malloc's; copies are CopyBytes (memmove without the 4 KiB-aliasing slow
// case, common/copy.hpp) per contiguous row; reductions are the kernels of host/reduce/.
#pragma once

#include "device/ops.hpp"

namespace weft::device::host {

class HostOps final : public Ops {
 public:
  static HostOps& Get();

  const char* name() const override { return "host"; }
  Result<void*> Allocate(const Target& t, size_t bytes) override;
  void Free(const Target& t, void* p, size_t bytes) noexcept override;
  Status Copy(const Target& t, const Region& dst, const ConstRegion& src, const Shape& shape,
              int64_t item) override;
  Status Fill(const Target& t, const Region& dst, const Shape& shape, const void* element,
              int64_t item) override;
  Status Reduce(const Target& t, DType type, ReduceOp op, const Region& inout,
                const ConstRegion& in, const Shape& shape) override;
  Status Widen(const Target& t, DType type, const void* src, void* acc, uint64_t count) override;
  Status Narrow(const Target& t, DType type, const void* acc, void* dst, uint64_t count,
                int64_t divisor) override;
  Status ToHost(const Target& t, void* host, const void* src, size_t bytes) override;
  Status FromHost(const Target& t, void* dst, const void* host, size_t bytes) override;
  Status Synchronize(const Target& t) override;
};

}  // namespace weft::device::host
