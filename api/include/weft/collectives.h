/* Weft C ABI: collectives and point-to-point on a mesh dim's group or the world (SPEC §6.5).
 *
 * Each call runs over the group of mesh dim `mesh_dim` of `mesh` that holds the calling rank
 * (SPEC §2.1), or over the whole world when mesh is NULL (mesh_dim is then ignored). Roots and
 * peers are group coordinates (world ranks when mesh is NULL). The group's communicator is
 * created on first use by its members only. Every member must call the same operations in the
 * same order. A rank outside `mesh` gets WEFT_ERR_INVALID_USAGE.
 *
 * Buffers are DLTensors of any whole-byte dtype, contiguous (compact strides), on the CPU (or
 * CUDA host memory; CUDA device memory needs the NCCL backend). Counts are elements. Passing
 * the same tensor (same data pointer) as input and output is the in-place form; other overlaps
 * are WEFT_ERR_INVALID_ARGUMENT. A tensor's bytes, from data + byte_offset, must lie in the
 * address space (below 2^56, past any 64-bit Linux user address): a byte_offset that wraps or
 * ends beyond it is WEFT_ERR_INVALID_ARGUMENT naming byte_offset. Reductions: WEFT_REDUCE_* with
 * the exact rules of SPEC §2.4 (avg accumulates in float64 for types of 32 bits or fewer; integers
 * wrap; bool or/and).
 *
 * A rank whose own arguments are invalid returns WEFT_ERR_INVALID_ARGUMENT without sending
 * anything and publishes the failure; its peers' matching operation then fails with
 * WEFT_ERR_ABORTED naming it within about a second, and the context is left aborted.
 *
 * Every call ends with (stream, opts, work) as described in types.h.
 */
#ifndef WEFT_COLLECTIVES_H_
#define WEFT_COLLECTIVES_H_

#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_COLLECTIVE_TAIL void *stream, const weft_call_options_t *opts, weft_work_t **work

/* recv = op over the group of send (same element count). */
WEFT_API weft_status_t weft_allreduce(weft_context_t* ctx, const weft_mesh_t* mesh,
                                      int32_t mesh_dim, const DLTensor* send, DLTensor* recv,
                                      int32_t op, WEFT_COLLECTIVE_TAIL);
/* recv holds group-size × numel(send) elements, member i's block at i × numel(send). */
WEFT_API weft_status_t weft_allgather(weft_context_t* ctx, const weft_mesh_t* mesh,
                                      int32_t mesh_dim, const DLTensor* send, DLTensor* recv,
                                      WEFT_COLLECTIVE_TAIL);
/* Member i contributes recv_counts[i] elements (its send holds exactly its own count) placed at
 * recv_displs[i] (NULL: packed in member order). */
WEFT_API weft_status_t weft_allgatherv(weft_context_t* ctx, const weft_mesh_t* mesh,
                                       int32_t mesh_dim, const DLTensor* send, DLTensor* recv,
                                       const int64_t* recv_counts, const int64_t* recv_displs,
                                       WEFT_COLLECTIVE_TAIL);
/* send holds group-size × numel(recv) elements; member i receives block i reduced. */
WEFT_API weft_status_t weft_reduce_scatter(weft_context_t* ctx, const weft_mesh_t* mesh,
                                           int32_t mesh_dim, const DLTensor* send, DLTensor* recv,
                                           int32_t op, WEFT_COLLECTIVE_TAIL);
/* send holds sum(counts) elements packed in member order; member i receives counts[i]. */
WEFT_API weft_status_t weft_reduce_scatterv(weft_context_t* ctx, const weft_mesh_t* mesh,
                                            int32_t mesh_dim, const DLTensor* send, DLTensor* recv,
                                            const int64_t* counts, int32_t op,
                                            WEFT_COLLECTIVE_TAIL);
/* send and recv hold group-size blocks of numel/group-size elements; block j goes to member j. */
WEFT_API weft_status_t weft_alltoall(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                                     const DLTensor* send, DLTensor* recv, WEFT_COLLECTIVE_TAIL);
/* Element counts and displacements per member; displs NULL means packed. Member i's
 * send_counts[j] must equal member j's recv_counts[i]. */
WEFT_API weft_status_t weft_alltoallv(weft_context_t* ctx, const weft_mesh_t* mesh,
                                      int32_t mesh_dim, const DLTensor* send,
                                      const int64_t* send_counts, const int64_t* send_displs,
                                      DLTensor* recv, const int64_t* recv_counts,
                                      const int64_t* recv_displs, WEFT_COLLECTIVE_TAIL);
/* buf of member `root` is copied into buf of every member. */
WEFT_API weft_status_t weft_broadcast(weft_context_t* ctx, const weft_mesh_t* mesh,
                                      int32_t mesh_dim, DLTensor* buf, int32_t root,
                                      WEFT_COLLECTIVE_TAIL);
WEFT_API weft_status_t weft_barrier(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                                    WEFT_COLLECTIVE_TAIL);
/* Point-to-point with member `peer`; tag in [0, 2^31): messages match in order per
 * (peer, tag) and their sizes must agree. */
WEFT_API weft_status_t weft_send(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                                 const DLTensor* buf, int32_t peer, int64_t tag,
                                 WEFT_COLLECTIVE_TAIL);
WEFT_API weft_status_t weft_recv(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                                 DLTensor* buf, int32_t peer, int64_t tag, WEFT_COLLECTIVE_TAIL);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_COLLECTIVES_H_ */
