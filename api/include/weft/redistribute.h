/* Weft C ABI: redistribute — move a tensor from one layout to another over one mesh or between
 * two meshes of a context, and several tensors in one plan (SPEC §3,
 * §6.5), exactly (bitwise for data movement; reductions as in SPEC §2.4) and without padding.
 *
 * A plan is computed once from (src, dst), identically on every rank and without
 * communication; executing it runs each step's collective on the communicator of its group.
 * Pieces that are contiguous in the caller's buffers are sent from and received into them
 * directly; only non-contiguous pieces are packed, with staging buffers the plan owns and
 * reuses. Plans are immutable apart from that workspace and may be shared between threads,
 * but a plan has at most one execution in flight (a second gets WEFT_ERR_INVALID_USAGE).
 *
 * Buffers: `in` holds this rank's block of src and `out` its block of dst, as DLTensors with
 * exactly the local shape (weft_layout_local_shape) and the layout's dtype, on the CPU (or CUDA
 * host memory). Strides may be anything non-negative that stays inside the tensor (NULL:
 * row-major); `out` must not have overlapping elements and must not overlap `in`. The bytes the
 * strides reach from data + byte_offset must fit in 2^63 and lie below 2^56 (past any 64-bit
 * Linux user address), else WEFT_ERR_INVALID_ARGUMENT naming the stride or byte_offset. On a rank
 * outside the mesh, in and out may be NULL and the call does nothing (cross-mesh plans: in is
 * NULL outside the source mesh, out outside the destination mesh).
 */
#ifndef WEFT_REDISTRIBUTE_H_
#define WEFT_REDISTRIBUTE_H_

#include "weft/collectives.h"
#include "weft/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_plan weft_plan_t; /* a redistribute plan */

/* rank: the world rank to plan for; -1 takes the context's rank, and is required (>= 0) for a
 * layout on an abstract mesh. A plan made for another rank than the caller's, or on an
 * abstract mesh, can be described and measured but not executed.
 *
 * extra_bytes_cap (redistribute plans; since struct_size 24): for pairs without Partial a plan
 * receives on each rank at most what that rank's destination block lacks (|dst \ src|; twice
 * that over several steps; nothing where it lacks nothing). A cheaper plan under the cost
 * model (e.g. one all-gather instead of many small messages) may exceed that by at most this
 * many bytes per rank, never on a rank that lacks nothing; weft_plan_describe says when and
 * why. 0: never exceed. -1: the default, WEFT_PLAN_EXTRA_BYTES_CAP if set, else 262144
 * (256 KiB). Every rank must plan with the same value (it is part of the plan check). */
typedef struct weft_plan_options {
  uint32_t struct_size;
  int32_t rank;
  uint64_t reserved; /* 0 */
  int64_t extra_bytes_cap;
} weft_plan_options_t;

#define WEFT_PLAN_OPTIONS_INIT \
  { sizeof(weft_plan_options_t), -1, 0, -1 }

/* What a plan does on its rank: steps, bytes sent and received (remote traffic as the
 * collectives move it), and the peak extra memory an execution holds (intermediate layouts
 * and staging, with row-major buffers). */
typedef struct weft_plan_stats {
  uint32_t struct_size;
  uint32_t reserved;
  int64_t steps;
  int64_t send_bytes;
  int64_t recv_bytes;
  int64_t extra_bytes;
} weft_plan_stats_t;

#define WEFT_PLAN_STATS_INIT \
  { sizeof(weft_plan_stats_t), 0, 0, 0, 0, 0 }

/* Plans the redistribute from src to dst. Both must have equal global shapes and dtypes and be
 * on equal meshes (Partial(a) -> Partial(b) with a != b and Shard -> Partial(avg) are then
 * rejected) or on two different meshes of one context: a cross-mesh redistribute, e.g.
 * between pipeline stages on disjoint sub-meshes, or overlapping ones. A cross-mesh plan runs
 * over the union of the two meshes' ranks: a source Partial is first reduced on the source
 * mesh, then one all-to-all-v over the union (ascending world ranks) moves (source block) ∩
 * (destination block) pieces, each element from one source replica (the receiver's own copy
 * when it has one, else replicas are spread over the receivers), then a destination Partial is
 * made locally (SPEC §2.4 conjugates; any op, avg included). Ranks outside the source mesh
 * pass in = NULL, ranks outside the destination mesh out = NULL (whatever they pass there is
 * ignored). Meshes of different contexts are unrelated: an error. These checks need no
 * communication, so every rank fails the same way (WEFT_ERR_INVALID_ARGUMENT). opts may be
 * NULL. */
WEFT_API weft_status_t weft_redistribute_plan_create(const weft_layout_t* src,
                                                     const weft_layout_t* dst,
                                                     const weft_plan_options_t* opts,
                                                     weft_plan_t** plan);

/* Runs a plan of one tensor (batched plans: weft_plan_execute_n): collective over the ranks
 * of the mesh (of both meshes, cross-mesh), in issue order. The first execution
 * checks with one small all-reduce that every rank built the same plan (WEFT_ERR_INVALID_USAGE
 * on every rank if not). A rank whose buffers do not match its local shapes returns
 * WEFT_ERR_INVALID_ARGUMENT before communicating, buffers untouched, and its peers get
 * WEFT_ERR_ABORTED (SPEC §6.4). */
WEFT_API weft_status_t weft_plan_execute(weft_plan_t* plan, const DLTensor* in, DLTensor* out,
                                         WEFT_COLLECTIVE_TAIL);

/* Batched: one plan for n >= 1 redistributes (src[i] -> dst[i], each checked as above; an
 * error names its pair). All 2n layouts must be on one mesh (no cross-mesh batches). When the n
 * pair plans have the same step structure (same step kinds, mesh dims and reduction ops — e.g. one
 * placement pair on tensors of different shapes and dtypes), their steps are fused: each
 * communicating step runs one collective for all n tensors over a combined byte layout (one
 * all-to-all-v, not n); reduction steps run one collective per distinct dtype. Otherwise the n
 * plans run one after another within one execution. weft_plan_describe and weft_plan_stats cover
 * all n (stats: steps of one fused plan, or the sum when not fused; bytes summed). Fused steps pack
 * every piece into plan-owned staging (no direct transfers from the user's buffers). */
WEFT_API weft_status_t weft_redistribute_plan_create_n(int32_t n, const weft_layout_t* const* src,
                                                       const weft_layout_t* const* dst,
                                                       const weft_plan_options_t* opts,
                                                       weft_plan_t** plan);

/* Runs a plan of n tensors (n must equal the plan's count; a plan from
 * weft_redistribute_plan_create has 1): in[i] / out[i] are tensor i's blocks, checked as for
 * weft_plan_execute; no out[i] may overlap any in[j] or another out[j]. The first execution's
 * plan check covers all n pairs. On a rank outside the mesh, in and out may be NULL. */
WEFT_API weft_status_t weft_plan_execute_n(weft_plan_t* plan, int32_t n, const DLTensor* const* in,
                                           DLTensor* const* out, WEFT_COLLECTIVE_TAIL);

/* One line per step: its kind (collective), mesh dims, placements before and after, and the
 * bytes this plan's rank sends and receives. When the cost model's cheapest plan of a pair
 * without Partial does not meet the byte bound (see weft_plan_options_t.extra_bytes_cap), a
 * last line starting "byte bound" says whether the plan exceeds it (on which rank, by how
 * much, and the model's costs of this plan and of the one-step plan that meets it) or which
 * cheaper plan was declined and why. Text convention: (buf, len, needed). */
WEFT_API weft_status_t weft_plan_describe(const weft_plan_t* plan, char* buf, size_t len,
                                          size_t* needed);

/* Fills stats (struct_size set by WEFT_PLAN_STATS_INIT) for the plan's rank. */
WEFT_API weft_status_t weft_plan_stats(const weft_plan_t* plan, weft_plan_stats_t* stats);

/* Releases the plan (redistribute or halo); an execution in flight keeps what it needs alive,
 * and a weft_plan_execute another thread is in with it finishes normally (weft/types.h).
 * NULL is accepted; a destroyed or foreign plan gives WEFT_ERR_INVALID_ARGUMENT. */
WEFT_API weft_status_t weft_plan_destroy(weft_plan_t* plan);

/* One-shot: plans (or finds in a bounded, thread-safe per-process cache keyed by the two
 * layouts, compared as weft_layout_equal does) and executes. Errors as for plan create and
 * execute. Calls with equal layouts share the cached plan; one issued while that plan is
 * still running uses a workspace of its own. */
WEFT_API weft_status_t weft_redistribute(const weft_layout_t* src_layout, const DLTensor* in,
                                         const weft_layout_t* dst_layout, DLTensor* out,
                                         WEFT_COLLECTIVE_TAIL);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_REDISTRIBUTE_H_ */
