// Reductions NCCL cannot do exactly (dtype.hpp): the members' data is gathered through NCCL and
// folded on the host in member order with the host's own kernel (SPEC §2.4's rules), so every
// member gets the same bits as the CPU backends' deterministic path. Host buffers only until
// the CUDA device operations can fold on the device.
#pragma once

#include <weft/backend_plugin.h>

#include "backends/nccl/plugin/launch.hpp"

namespace weft::backends::nccl_plugin {

weft_status_t FoldAllreduce(Launch& l, const void* send, void* recv, uint64_t count, DLDataType t,
                            int32_t op, weft_bk_request_t** req);
// counts[i] elements of send go to member i.
weft_status_t FoldReduceScatterv(Launch& l, const void* send, void* recv, const uint64_t* counts,
                                 DLDataType t, int32_t op, weft_bk_request_t** req);

}  // namespace weft::backends::nccl_plugin
