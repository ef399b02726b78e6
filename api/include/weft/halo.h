/* Weft C ABI: halo and window exchange for domain parallelism (SPEC §4, §6.5).
 *
 * A halo plan turns a sharded tensor into an overlapping ("padded") layout: every rank of the
 * mesh gets, per tensor dim, a global window [begin, end) that may reach into its neighbours'
 * rows (however many hops away) and past the physical boundary (filled by a boundary rule).
 * weft_halo_exchange fills the padded block; weft_halo_accumulate is its exact adjoint (every
 * padded cell adds into the element it was read from), for the backward pass.
 *
 * The plan is built from replicated metadata, identically on every rank and without
 * communication: an impossible request fails on every rank with the same message before any
 * message is sent. The plan is a weft_plan_t: weft_plan_describe, weft_plan_stats and
 * weft_plan_destroy serve it (weft_plan_execute does not: it answers WEFT_ERR_INVALID_USAGE).
 * One execution (exchange, in-place exchange or accumulate) is in flight per plan at a time.
 *
 * Buffers: `local` holds this rank's block of the layout (weft_layout_local_shape) and `padded`
 * its window (weft_halo_padded_shape), as DLTensors of the layout's dtype on the CPU (or CUDA
 * host memory), any non-negative strides that stay inside the tensor (NULL: row-major); the
 * written tensor must not have overlapping elements nor overlap the read one. The bytes the
 * strides reach from data + byte_offset must fit in 2^63 and lie below 2^56 (past any 64-bit
 * Linux user address); otherwise WEFT_ERR_INVALID_ARGUMENT naming the stride or byte_offset.
 */
#ifndef WEFT_HALO_H_
#define WEFT_HALO_H_

#include "weft/redistribute.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Boundary rules (SPEC §4.2), per tensor dim and side; g >= 1 rows beyond an edge of extent N.
 * NONE: a window reaching outside [0, N) is an error. CONSTANT: the plan's constant_value.
 * REFLECT: x[-g] = x[g] (overhang <= N-1). SYMMETRIC: x[-g] = x[g-1] (overhang <= N).
 * REPLICATE: x[-g] = x[0]. PERIODIC: x[-g] = x[N-g] (overhang <= N). Mirrored on the high side. */
#define WEFT_BOUNDARY_NONE 0
#define WEFT_BOUNDARY_CONSTANT 1
#define WEFT_BOUNDARY_REFLECT 2
#define WEFT_BOUNDARY_SYMMETRIC 3
#define WEFT_BOUNDARY_REPLICATE 4
#define WEFT_BOUNDARY_PERIODIC 5

/* BOX: the window is the full product of the per-dim windows (corners included). STAR: no
 * cell that lies outside the owned box in two or more windowed dims is sent (boundary padding
 * included): the out-of-place exchange writes zeros there, the in-place exchange leaves those
 * cells untouched, and accumulate ignores them. */
#define WEFT_STENCIL_BOX 0
#define WEFT_STENCIL_STAR 1

/* PHASES: one phase per windowed dim, in ascending order; a phase fills the cells outside the
 * owned range in its dim from their owners' padded blocks, so corners travel through the faces
 * (2 messages per sharded dim for a one-hop box stencil). NEIGHBOR: one neighbour
 * all-to-all-v, each box straight from the owner of its rows (any number of hops). AUTO picks
 * PHASES for box stencils over two or more windowed dims when it sends fewer messages in total
 * (or as many and fewer bytes), else NEIGHBOR; both give the same padded blocks. Forced PHASES
 * fails at plan time, on every rank, only where forwarding would read rows a neighbour's padded
 * block does not hold (neighbours with different windows in an earlier dim); a single windowed
 * dim is one phase and is always served. Each box travels as a message of its own. */
#define WEFT_HALO_TRANSPORT_AUTO 0
#define WEFT_HALO_TRANSPORT_PHASES 1
#define WEFT_HALO_TRANSPORT_NEIGHBOR 2

/* One windowed tensor dim. Tensor dims without an entry keep their owned range (no halo).
 *
 * Uniform mode (windows == NULL): a rank owning [a, b) of extent N gets
 *   begin = (a == 0) ? -pad_lo : max(a - lo, -pad_lo),
 *   end   = (b == N) ? N + pad_hi : min(b + hi, N + pad_hi);
 * an empty shard gets the empty window [a, a).
 * Explicit mode: windows holds 2 × (mesh size) values, begin and end of the window of the rank
 * at each row-major mesh position (the same table on every rank); windows may be asymmetric,
 * smaller than the owned range, or non-empty on an empty shard, and must lie inside
 * [-pad_lo, N + pad_hi) (lo and hi are then ignored). The table is copied at plan creation.
 *
 * Limits: lo, hi, pad_lo and pad_hi are each in [0, 2^56], and N + lo + hi + pad_lo + pad_hi
 * must be below 2^63. Window bounds are int64 row numbers (an owned range's ends minus lo and
 * plus hi, clamped to [-pad_lo, N + pad_hi]): the sum limit is what keeps every bound exact;
 * the per-value limit lets that sum be computed without overflow, and costs nothing, since lo
 * and hi past the tensor are clamped anyway and 2^56 rows of padding fit in no memory. The
 * padded tensor (the global shape with pad_lo + pad_hi added to each windowed dim) must also
 * fit in 2^63 - 1 bytes, as any buffer must. */
typedef struct weft_halo_dim {
  int32_t dim;            /* tensor dim */
  int32_t boundary_lo;    /* WEFT_BOUNDARY_* below row 0 */
  int32_t boundary_hi;    /* WEFT_BOUNDARY_* above row N-1 */
  int32_t reserved;       /* 0 */
  int64_t lo, hi;         /* uniform mode: rows from the neighbours below / above (>= 0) */
  int64_t pad_lo, pad_hi; /* rows of physical boundary (>= 0) */
  const int64_t* windows; /* explicit mode table, or NULL */
} weft_halo_dim_t;

typedef struct weft_halo_desc {
  uint32_t struct_size;
  int32_t ndims; /* entries in dims (>= 1), distinct tensor dims */
  const weft_halo_dim_t* dims;
  int32_t stencil;   /* WEFT_STENCIL_* */
  int32_t transport; /* WEFT_HALO_TRANSPORT_* */
  /* Non-zero: accumulate adds every element's contributions in one fixed order (its own cell,
   * then the plan's transfers in plan order), so results are bitwise reproducible from run to
   * run; zero lets received contributions be added as they arrive. */
  int32_t deterministic;
  int32_t reserved;      /* 0 */
  double constant_value; /* WEFT_BOUNDARY_CONSTANT's value, converted to the dtype */
} weft_halo_desc_t;

#define WEFT_HALO_DESC_INIT \
  { sizeof(weft_halo_desc_t), 0, NULL, WEFT_STENCIL_BOX, WEFT_HALO_TRANSPORT_AUTO, 0, 0, 0.0 }

/* Plans the halo of `layout` (on a context's mesh, or an abstract one with opts->rank set, for
 * sizing). Mesh dims that do not shard a windowed tensor dim (Replicate, Partial, or sharding an
 * unwindowed dim) exchange within each of their coordinates independently; the exchange is
 * linear, so a Partial layout gives Partial padded blocks. Errors (WEFT_ERR_INVALID_ARGUMENT,
 * the same on every rank): a bad descriptor field, a repeated or out-of-range dim, a window
 * outside [-pad_lo, N + pad_hi), one reaching past an edge whose rule is NONE, an overhang above
 * the rule's limit, lo, hi or padding beyond the limits of weft_halo_dim_t, a forced transport
 * that cannot serve the windows. */
WEFT_API weft_status_t weft_halo_plan_create(const weft_layout_t* layout,
                                             const weft_halo_desc_t* desc,
                                             const weft_plan_options_t* opts, weft_plan_t** plan);

/* The padded block of world rank `rank` (a rank of the plan's mesh; -1: the plan's rank): its
 * extent per tensor dim in shape, and in origin the global index of its first element (negative
 * into the low boundary); padded[i] holds X[origin + i]. Either pointer may be NULL. */
WEFT_API weft_status_t weft_halo_padded_shape(const weft_plan_t* plan, int32_t rank, int64_t* shape,
                                              int64_t* origin);

/* padded = the window of this rank: owned rows copied from local, the rest from their owners
 * and the boundary rules. Collective over the plan's mesh. */
WEFT_API weft_status_t weft_halo_exchange(weft_plan_t* plan, const DLTensor* local,
                                          DLTensor* padded, WEFT_COLLECTIVE_TAIL);

/* Fills only the ghost cells of `padded`, whose cells inside the owned range already hold the
 * local data: those are read where a neighbour needs them and never written (no interior
 * copy). Every rank's window must contain its owned range (else WEFT_ERR_INVALID_USAGE on every
 * rank, before anything is sent). */
WEFT_API weft_status_t weft_halo_exchange_inplace(weft_plan_t* plan, DLTensor* padded,
                                                  WEFT_COLLECTIVE_TAIL);

/* The adjoint of weft_halo_exchange: every cell of padded_grad adds into the element of the
 * owner it was read from (boundary rows to their mirrored, edge or wrapped source; constant and
 * star-skipped cells are dropped). add == 0: local_grad = the sum; add != 0: local_grad += it.
 * <exchange(x), y> = <x, accumulate(y)> for any x, y. Collective over the plan's mesh. */
WEFT_API weft_status_t weft_halo_accumulate(weft_plan_t* plan, const DLTensor* padded_grad,
                                            DLTensor* local_grad, int32_t add,
                                            WEFT_COLLECTIVE_TAIL);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_HALO_H_ */
