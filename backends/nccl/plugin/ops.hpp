// The plugin table's operations (backend_plugin.h has their contracts).
#pragma once

#include <weft/backend_plugin.h>

namespace weft::backends::nccl_plugin::ops {

weft_status_t Allreduce(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                        DLDataType t, int32_t op, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Allgather(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                        DLDataType t, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Allgatherv(weft_bk_comm_t* c, const void* send, uint64_t send_count, void* recv,
                         const uint64_t* counts, const uint64_t* displs, DLDataType t,
                         const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t ReduceScatter(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                            DLDataType t, int32_t op, const weft_bk_op_t* a,
                            weft_bk_request_t** req);
weft_status_t ReduceScatterv(weft_bk_comm_t* c, const void* send, void* recv,
                             const uint64_t* counts, DLDataType t, int32_t op,
                             const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Alltoall(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                       DLDataType t, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Alltoallv(weft_bk_comm_t* c, const void* send, const uint64_t* send_counts,
                        const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                        const uint64_t* recv_displs, DLDataType t, const weft_bk_op_t* a,
                        weft_bk_request_t** req);
weft_status_t Broadcast(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t root,
                        const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Barrier(weft_bk_comm_t* c, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Send(weft_bk_comm_t* c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Recv(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req);

}  // namespace weft::backends::nccl_plugin::ops
