// Runs an operator's reference kernel on every rank of an abstract mesh, one thread a rank, so
// that kernels with their own communication (KernelCall::all_gather) meet their group.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "ops/check/distribute.hpp"
#include "ops/engine/engine.hpp"
#include "ops/engine/kernel.hpp"

namespace weft::ops::check {

// Each rank's outputs for `strategy`, its inputs per rank in `inputs[i][rank]`. A kernel that
// fails, or an all_gather some rank of the group never joins (within a few seconds), is an
// error naming the rank.
Result<std::vector<std::vector<DenseTensor>>> RunRanks(
    const KernelFn& kernel, const Strategy& strategy, std::span<const TensorInfo> global_inputs,
    const Attributes& attrs, const std::vector<std::vector<RankBlock>>& inputs);

}  // namespace weft::ops::check
