/* Weft C ABI: redistribute — move a tensor from one layout to another over one mesh (SPEC §3,
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
 * row-major); `out` must not have overlapping elements and must not overlap `in`. On a rank
 * outside the mesh, in and out may be NULL and the call does nothing.
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
 * abstract mesh, can be described and measured but not executed. */
typedef struct weft_plan_options {
  uint32_t struct_size;
  int32_t rank;
  uint64_t reserved; /* 0 */
} weft_plan_options_t;

#define WEFT_PLAN_OPTIONS_INIT \
  { sizeof(weft_plan_options_t), -1, 0 }

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

/* Plans the redistribute from src to dst. Both must be on equal meshes with equal global
 * shapes and dtypes; Partial(a) -> Partial(b) with a != b and Shard -> Partial(avg) are
 * rejected. These checks need no communication, so every rank fails the same way
 * (WEFT_ERR_INVALID_ARGUMENT). opts may be NULL. */
WEFT_API weft_status_t weft_redistribute_plan_create(const weft_layout_t* src,
                                                     const weft_layout_t* dst,
                                                     const weft_plan_options_t* opts,
                                                     weft_plan_t** plan);

/* Runs the plan: collective over the ranks of the mesh, in issue order. The first execution
 * checks with one small all-reduce that every rank built the same plan (WEFT_ERR_INVALID_USAGE
 * on every rank if not). A rank whose buffers do not match its local shapes returns
 * WEFT_ERR_INVALID_ARGUMENT before communicating, buffers untouched, and its peers get
 * WEFT_ERR_ABORTED (SPEC §6.4). */
WEFT_API weft_status_t weft_plan_execute(weft_plan_t* plan, const DLTensor* in, DLTensor* out,
                                         WEFT_COLLECTIVE_TAIL);

/* One line per step: its kind (collective), mesh dims, placements before and after, and the
 * bytes this plan's rank sends and receives. Text convention: (buf, len, needed). */
WEFT_API weft_status_t weft_plan_describe(const weft_plan_t* plan, char* buf, size_t len,
                                          size_t* needed);

/* Fills stats (struct_size set by WEFT_PLAN_STATS_INIT) for the plan's rank. */
WEFT_API weft_status_t weft_plan_stats(const weft_plan_t* plan, weft_plan_stats_t* stats);

/* Releases the plan; an execution in flight keeps what it needs alive. NULL is accepted. */
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
