// Weft's dtypes and reductions in NCCL's terms. Data movement goes as bytes (ncclUint8): NCCL
// moves any dtype then, and the plugin never needs NCCL to know it. A reduction NCCL does
// exactly as SPEC §2.4 asks maps to one NCCL call, possibly on a reinterpreted type (complex
// sum is a sum of twice as many reals; bool or/and are uint8 max/min over 0 and 1). The rest
// (int16, uint16, complex prod) NCCL cannot do: the plugin declines them, and the host composes
// them from point-to-point messages with its own member-order fold.
#pragma once

#include <cstdint>

#include <weft/backend_plugin.h>

#include "backends/nccl/nccl_abi.hpp"

namespace weft::backends::nccl_plugin {

struct NcclReduction {
  ncclDataType_t type = nccl::kUint8;
  ncclRedOp_t op = nccl::kSum;
  uint64_t per_element = 1;  // NCCL elements per Weft element
};

// Whether NCCL can reduce (t, op) exactly; *out then says how.
bool MapReduction(DLDataType t, int32_t op, NcclReduction* out);

}  // namespace weft::backends::nccl_plugin
