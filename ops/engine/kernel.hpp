// Reference kernels (SPEC §5 "validation harness"; docs/design/rules.md): what an operator
// computes, on plain host tensors of doubles, so that the harness (tools/rulecheck) can run
// every candidate strategy rank by rank on an abstract mesh and compare the assembled outputs
// with the one-process result. Doubles because the harness feeds small integer values: sums,
// products, maxima and indices then stay exact, and transcendental ops compare with a stated
// tolerance. A kernel is optional; an operator without one is not checked.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/attributes.hpp"
#include "ops/engine/rule.hpp"
#include "placement/layout.hpp"

namespace weft::ops {

// Row-major, dense.
struct DenseTensor {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

// One rank's call. On one process (no mesh) the inputs are the global tensors, the offsets
// zero and `layouts` empty. The kernel must work on any local shapes the rule's strategies
// give: it takes the output shapes from `output_shapes` where the op cannot infer them (a
// reshape of a shard), and reads where its shard sits from the offsets (an embedding shard of
// rows masks the indices outside it).
struct KernelCall {
  std::span<const DenseTensor> inputs;                  // this rank's local blocks
  std::span<const std::vector<int64_t>> input_offsets;  // per input, global index of [0,...,0]
  std::span<const std::vector<int64_t>> output_shapes;  // per output, this rank's local shape
  std::span<const TensorInfo> global_inputs;            // global shapes and dtypes
  std::span<const placement::LayoutPtr> input_layouts;  // the strategy's (empty: one process)
  std::span<const placement::LayoutPtr> output_layouts;
  const Attributes* attrs = nullptr;
  int32_t rank = 0;
  // Windowed operators: per input, the halo the strategy gave it (no dims: none). Where an
  // input has one, its block is the padded window (input_offsets its origin, negative into the
  // padding) and the kernel runs without padding along the halo's dims. Empty on one process.
  std::span<const placement::halo::HaloSpec> halos;
  // For ops with their own communication (cumsum along a sharded dim, vocab-parallel
  // cross-entropy): every rank of `rank`'s group along `mesh_dim` passes its `mine` and gets
  // all of them in group order. Empty on one process; the harness runs ranks as threads.
  std::function<Result<std::vector<DenseTensor>>(int32_t mesh_dim, const DenseTensor& mine)>
      all_gather;
};

using KernelFn = std::function<Status(const KernelCall&, std::vector<DenseTensor>* outputs)>;

}  // namespace weft::ops
