// The device operations on CUDA memory (device/ops.hpp): stream-ordered allocation, copies
// through the runtime's copy engines where the region allows (one cudaMemcpyAsync for a
// contiguous region, cudaMemcpy2DAsync for contiguous rows) and kernels otherwise, fills,
// reductions with the host kernels' element math, and avg's widening and narrowing with the
// host's rounding. Everything is enqueued on the target's stream; nothing waits.
#pragma once

#include "device/ops.hpp"

namespace weft::device::cuda {

class CudaOps final : public Ops {
 public:
  static CudaOps& Get();
  const char* name() const override { return "cuda"; }
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

}  // namespace weft::device::cuda
