/* Weft C ABI: handles, placements and the option structs every call family shares.
 *
 * Option structs (SPEC §6.1) start with uint32_t struct_size, grow only by appending, and
 * have a WEFT_<STRUCT>_INIT initializer that sets struct_size and the defaults. A caller built
 * against older headers passes a smaller struct_size and gets defaults for the missing
 * fields; a struct_size larger than this library knows is accepted only if the unknown
 * trailing bytes are all zero. Structs hold fixed-width integers, enums as int32_t, no bool.
 *
 * Threads (SPEC §6.3): meshes, layouts and plans are immutable and may be shared between
 * threads without locking.
 *
 * Handles (SPEC §6.1, §10) are checked on every call: a handle that was destroyed, one passed
 * as another type (a mesh cast to a layout), or any value Weft never returned gives
 * WEFT_ERR_INVALID_ARGUMENT naming the argument, without Weft touching memory through it; so
 * does destroying a handle twice. A handle is a value, not an address: never dereference it.
 * A handle destroyed while another thread is inside a call with it stays valid for that call
 * (the call finishes normally; the object is freed when the last such call returns); calls
 * made after the destroy returned are rejected. weft_context_destroy instead waits for such
 * calls before it leaves the world (weft/context.h). Objects made from a handle keep what
 * they need of it: a layout its mesh, a plan its layouts, work its buffers' operation.
 */
#ifndef WEFT_TYPES_H_
#define WEFT_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "weft/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Debian's DLPack 0.6 has no kDLBool; Weft's bool is one byte, DLDataType{6, 8, 1}. */
#define WEFT_DLPACK_BOOL_CODE 6
#define WEFT_DLPACK_BOOL \
  { 6, 8, 1 }

#define WEFT_MAX_MESH_NDIM 16
#define WEFT_MAX_TENSOR_NDIM 32

typedef struct weft_context weft_context_t; /* a process's membership in a world */
typedef struct weft_mesh weft_mesh_t;       /* an N-D array of ranks */
typedef struct weft_layout weft_layout_t;   /* mesh + global shape + dtype + placements */
typedef struct weft_work weft_work_t;       /* an asynchronous operation */

/* Placement kinds (weft_placement_t.kind). */
enum { WEFT_REPLICATE = 0, WEFT_SHARD = 1, WEFT_PARTIAL = 2 };

/* Reduction ops (weft_placement_t.reduce_op and the collectives' op). */
enum {
  WEFT_REDUCE_SUM = 0,
  WEFT_REDUCE_AVG = 1,
  WEFT_REDUCE_MAX = 2,
  WEFT_REDUCE_MIN = 3,
  WEFT_REDUCE_PROD = 4
};

/* One placement per mesh dim (SPEC §2.2). `dim` is read only for WEFT_SHARD and `reduce_op`
 * only for WEFT_PARTIAL; `reserved` must be 0. */
typedef struct weft_placement {
  int32_t kind;
  int32_t dim;
  int32_t reduce_op;
  int32_t reserved;
} weft_placement_t;

#define WEFT_PLACEMENT_REPLICATE \
  { WEFT_REPLICATE, 0, 0, 0 }
#define WEFT_PLACEMENT_SHARD(d) \
  { WEFT_SHARD, (d), 0, 0 }
#define WEFT_PLACEMENT_PARTIAL(op) \
  { WEFT_PARTIAL, 0, (op), 0 }

/* Per-call options of every communicating call (SPEC §6.3). Communicating calls end with
 * (void* stream, const weft_call_options_t* opts, weft_work_t** work):
 *  - stream: NULL for host buffers; for device buffers the stream the work is enqueued on,
 *    and "complete" then means enqueued.
 *  - opts: NULL takes the context's defaults.
 *  - work: NULL blocks until the operation completes or fails. Otherwise *work receives a
 *    handle for weft_work_wait / weft_work_test / weft_work_release, and the buffers must stay
 *    valid until the work completes (Weft copies the DLTensor descriptors during the call).
 * timeout_ms is the operation's deadline from the call: 0 takes the context default, a
 * negative value means no deadline. Passing it gives WEFT_ERR_TIMEOUT, which fails the
 * context (its sticky error, weft/context.h): later calls fail at once. A deadline of 10 s or
 * more is read from the coarse clock (which spares a small collective a tenth of its latency)
 * with two of its ticks added: it may pass a few milliseconds late, and would pass early only
 * if that clock lagged by more than two ticks. */
typedef struct weft_call_options {
  uint32_t struct_size;
  uint32_t reserved;
  int64_t timeout_ms;
} weft_call_options_t;

#define WEFT_CALL_OPTIONS_INIT \
  { sizeof(weft_call_options_t), 0, 0 }

#ifdef __cplusplus
}
#endif

#endif /* WEFT_TYPES_H_ */
