// The part of NCCL's C ABI the plugin calls, under NCCL's C names, so that the plugin builds
// without NCCL's header and opens libnccl.so.2 at run time (nccl_api.hpp); the fake NCCL of the
// tests (tests/fakes/nccl) implements the same declarations. Values and layouts:
// nccl_types.hpp.
#pragma once

#include "backends/nccl/nccl_types.hpp"

extern "C" {

typedef struct ncclComm* ncclComm_t;
typedef weft::nccl::Result ncclResult_t;
typedef weft::nccl::DataType ncclDataType_t;
typedef weft::nccl::RedOp ncclRedOp_t;
typedef weft::nccl::UniqueId ncclUniqueId;
typedef weft::nccl::Config weft_nccl_config_t;

}  // extern "C"
