// The collective functions of the plugin table (signatures of weft_backend_plugin_t).
#pragma once

#include "backends/ucx/transport/transport.hpp"

namespace weft::backends::ucx_plugin {

weft_status_t CollAllreduce(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                            DLDataType dtype, int32_t op, const weft_bk_op_t* args,
                            weft_bk_request_t** req);
weft_status_t CollAllgather(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                            DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req);
weft_status_t CollAllgatherv(weft_bk_comm_t* comm, const void* send, uint64_t send_count,
                             void* recv, const uint64_t* recv_counts, const uint64_t* recv_displs,
                             DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req);
weft_status_t CollReduceScatter(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                                DLDataType dtype, int32_t op, const weft_bk_op_t* args,
                                weft_bk_request_t** req);
weft_status_t CollReduceScatterv(weft_bk_comm_t* comm, const void* send, void* recv,
                                 const uint64_t* counts, DLDataType dtype, int32_t op,
                                 const weft_bk_op_t* args, weft_bk_request_t** req);
weft_status_t CollAlltoall(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                           DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req);
weft_status_t CollAlltoallv(weft_bk_comm_t* comm, const void* send, const uint64_t* send_counts,
                            const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                            const uint64_t* recv_displs, DLDataType dtype, const weft_bk_op_t* args,
                            weft_bk_request_t** req);
weft_status_t CollBroadcast(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                            int32_t root, const weft_bk_op_t* args, weft_bk_request_t** req);
weft_status_t CollBarrier(weft_bk_comm_t* comm, const weft_bk_op_t* args, weft_bk_request_t** req);

}  // namespace weft::backends::ucx_plugin
