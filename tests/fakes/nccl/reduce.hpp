// The fake NCCL's reductions: acc = acc op in, elementwise, for NCCL's types and ops. The
// 16-bit floats are widened to float32 and rounded back after each step, as a ring's every hop
// rounds on the device. Contributions are applied in rank order, so every rank gets the same
// bits (real NCCL's order depends on its algorithm and the ranks' places).
#pragma once

#include <cstddef>

#include "backends/nccl/nccl_abi.hpp"

namespace weft::fake_nccl {

// Bytes of one element; 0 for a type the fake does not know.
size_t TypeSize(ncclDataType_t type);
// Whether `op` is a reduction the fake runs on `type` (fp8 types only move, never reduce).
bool CanReduce(ncclDataType_t type, ncclRedOp_t op);
void Reduce(ncclDataType_t type, ncclRedOp_t op, void* acc, const void* in, size_t count);
// ncclAvg's last step: acc /= n.
void Divide(ncclDataType_t type, void* acc, size_t count, int n);

}  // namespace weft::fake_nccl
