// The ops of the plugin table, one file per family. Same contracts as the function pointers
// of weft_backend_plugin_t (api/include/weft/backend_plugin.h), on the plugin's own types.
//
// Collectives run Gloo's own algorithms and block: with a request asked for, the request is
// already complete when the op returns. send/recv are asynchronous (Gloo's device thread
// moves the bytes). reduce_scatter(v) are left to the host, which composes them as a ring
// over send/recv.
#pragma once

#include <memory>

#include <weft/backend_plugin.h>

namespace weft::backends::gloo_plugin {

class Comm;

weft_status_t Allreduce(Comm& comm, const void* send, void* recv, uint64_t count, DLDataType dtype,
                        int32_t op, const weft_bk_op_t* args, weft_bk_request_t** req);

weft_status_t Allgather(Comm& comm, const void* send, void* recv, uint64_t count, DLDataType dtype,
                        const weft_bk_op_t* args, weft_bk_request_t** req);

weft_status_t Allgatherv(Comm& comm, const void* send, uint64_t send_count, void* recv,
                         const uint64_t* recv_counts, const uint64_t* recv_displs, DLDataType dtype,
                         const weft_bk_op_t* args, weft_bk_request_t** req);

weft_status_t Alltoall(Comm& comm, const void* send, void* recv, uint64_t count, DLDataType dtype,
                       const weft_bk_op_t* args, weft_bk_request_t** req);

weft_status_t Alltoallv(Comm& comm, const void* send, const uint64_t* send_counts,
                        const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                        const uint64_t* recv_displs, DLDataType dtype, const weft_bk_op_t* args,
                        weft_bk_request_t** req);

weft_status_t Broadcast(Comm& comm, void* buf, uint64_t count, DLDataType dtype, int32_t root,
                        const weft_bk_op_t* args, weft_bk_request_t** req);

weft_status_t Barrier(Comm& comm, const weft_bk_op_t* args, weft_bk_request_t** req);

weft_status_t Send(const std::shared_ptr<Comm>& comm, const void* buf, uint64_t count,
                   DLDataType dtype, int32_t peer, int64_t tag, const weft_bk_op_t* args,
                   weft_bk_request_t** req);

weft_status_t Recv(const std::shared_ptr<Comm>& comm, void* buf, uint64_t count, DLDataType dtype,
                   int32_t peer, int64_t tag, const weft_bk_op_t* args, weft_bk_request_t** req);

}  // namespace weft::backends::gloo_plugin
