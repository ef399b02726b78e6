// The device-operations layer (device/README.md): what executors do to memory — allocate,
// strided copy, fill, reduce, and the avg widening and narrowing — behind one interface with an
// implementation per kind of memory, chosen by the memory's DLDevice. Every operation works on
// a whole region and is ordered on the caller's stream: NULL for host memory, where it has
// completed when it returns; on a device it has been enqueued on that stream.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

#include "common/dtype.hpp"
#include "common/result.hpp"
#include "device/region.hpp"

namespace weft::device {

using Stream = void*;

// Where an operation runs: the device that holds its memory and the stream it is ordered on.
struct Target {
  DLDevice device{kDLCPU, 0};
  Stream stream = nullptr;
};

// One kind of memory's operations. Implementations are stateless or thread-safe: one object
// serves every device of its type and every thread. Pointers and regions address memory on
// t.device; `element` arguments are host memory read during the call. A region's cells are
// item-aligned only where the caller made them so: implementations assume no alignment.
class Ops {
 public:
  virtual ~Ops() = default;
  virtual const char* name() const = 0;

  // `bytes` (> 0) of memory on t.device, usable by work on t.stream; kOutOfMemory when there is
  // none. Released by Free with the same target and size.
  virtual Result<void*> Allocate(const Target& t, size_t bytes) = 0;
  // Releases Allocate's memory once the work queued on t.stream before this call is done.
  virtual void Free(const Target& t, void* p, size_t bytes) noexcept = 0;

  // dst[i] = src[i] for every i of `shape`, `item` bytes each. src may repeat cells (stride 0)
  // and walk backwards; dst must not repeat cells, and the two must not overlap.
  virtual Status Copy(const Target& t, const Region& dst, const ConstRegion& src,
                      const Shape& shape, int64_t item) = 0;
  // dst[i] = element for every i of `shape`; item <= kMaxItemBytes.
  virtual Status Fill(const Target& t, const Region& dst, const Shape& shape, const void* element,
                      int64_t item) = 0;
  // inout[i] = op(inout[i], in[i]) with the reduction kernels' semantics (SPEC §2.4; not avg),
  // in row-major order of i: where inout repeats a cell (stride 0) its contributions are added
  // in that order, so the result is deterministic. in and inout are disjoint or the same cells.
  virtual Status Reduce(const Target& t, DType type, ReduceOp op, const Region& inout,
                        const ConstRegion& in, const Shape& shape) = 0;
  // avg (SPEC §2.4), on `count` contiguous elements: acc[i] = src[i] widened to
  // AccumulatorType(type) (exact), and dst[i] = acc[i] / divisor rounded once into `type`.
  // src/dst and acc are disjoint, or the same memory where the accumulator is the type itself.
  virtual Status Widen(const Target& t, DType type, const void* src, void* acc, uint64_t count) = 0;
  virtual Status Narrow(const Target& t, DType type, const void* acc, void* dst, uint64_t count,
                        int64_t divisor) = 0;

  // `bytes` contiguous bytes between host memory (pageable or pinned) and t.device's memory,
  // ordered on t.stream: what leaves a device for code that reads it on the host (files,
  // checksums) and comes back from there. The host memory must stay valid until the copy is
  // done (Synchronize).
  virtual Status ToHost(const Target& t, void* host, const void* src, size_t bytes) = 0;
  virtual Status FromHost(const Target& t, void* dst, const void* host, size_t bytes) = 0;
  // Returns once every operation enqueued on t.stream so far has completed (the host's own
  // operations complete when they return: nothing to wait for).
  virtual Status Synchronize(const Target& t) = 0;
};

// The operations for `device`'s memory: the host's for kDLCPU and kDLCUDAHost, a registered
// implementation for other types. kNotAvailable for CUDA memory while no CUDA implementation is
// registered (it comes with the NCCL backend), kUnsupported for any other device type.
Result<Ops*> OpsFor(DLDevice device);

// Installs `ops` for every device of `device_type` (a DLDeviceType; null uninstalls); `ops` must
// outlive its use. kInvalidArgument for the host's own types and for types outside DLPack's
// range. Not meant to race with OpsFor on the same type: implementations register at start-up,
// tests around cases.
Status RegisterOps(int32_t device_type, Ops* ops);

// "CPU", "CUDA", ..., or "device type N".
const char* DeviceTypeName(int32_t type);

}  // namespace weft::device
