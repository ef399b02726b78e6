// What the families' reference kernels share beyond shape_util.hpp (ops/engine/kernel.hpp):
// lanes along a dim and broadcasting on row-major blocks, where this rank sits on the mesh,
// and reductions across ranks through KernelCall::all_gather for ops with their own
// communication.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/kernel.hpp"

namespace weft::ops {

// A block seen as lanes along `dim`: element (o, j, i) of `outer` x `n` x `inner`.
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t At(int64_t o, int64_t j, int64_t i) const { return (o * n + j) * inner + i; }
};
Lanes LanesOf(const std::vector<int64_t>& shape, int32_t dim);

// shape::ForEach with the coordinate as a vector and the row-major flat index.
void ForEachIndex(const std::vector<int64_t>& shape,
                  const std::function<void(const std::vector<int64_t>&, int64_t)>& fn);

// For each flat index of `out`, the flat index into a block of shape `in` broadcasting to it
// (dims aligned on the right; extent 1 repeats).
std::vector<int64_t> BroadcastIndex(const std::vector<int64_t>& out,
                                    const std::vector<int64_t>& in);

// The mesh dims that cut dim `dim` of input `input` in this call, in piece order (outermost
// first); empty on one process.
std::vector<int32_t> CuttingMeshDims(const KernelCall& call, size_t input, int32_t dim);

// This rank's coordinate along mesh dim `mesh_dim` (its position in all_gather's answer).
int64_t MeshCoordinate(const KernelCall& call, int32_t mesh_dim);

// `mine` combined elementwise by `f` with the same-shaped blocks of the ranks along each of
// `mesh_dims` in turn: an all-reduce built on all_gather.
Result<DenseTensor> CombineOver(const KernelCall& call, const std::vector<int32_t>& mesh_dims,
                                DenseTensor mine, const std::function<double(double, double)>& f);

// "operator 'op': why" as kInvalidArgument, for kernels' checks of values.
Status KernelError(const std::string& op, const std::string& why);

}  // namespace weft::ops
