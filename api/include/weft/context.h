/* Weft C ABI: contexts (SPEC §6.3, §8, §10).
 *
 * A context is this process's membership in a world of ranks: its rank, the bootstrap store
 * (hosted by rank 0), the backend plugin and the connections. Creating and destroying one is
 * collective over the world.
 *
 * Threads: several threads may call into one context if every rank issues each
 * communicator's operations in the same order. weft_context_abort may be called from any
 * thread at any time.
 *
 * Failures (SPEC §10, docs/design/faults.md): the first of these becomes the context's sticky
 * error, aborts every pending operation, and makes every later call fail at once with it:
 *  - a peer's death (PEER_FAILURE naming it; the store's verdict, waited for up to a second
 *    when the transport saw the failure first);
 *  - an operation of this rank passing its deadline (TIMEOUT): the peers' state is unknown and
 *    the order of operations on the communicator is broken, so the context is not usable any
 *    more. The other ranks are told through the store and fail with TIMEOUT too;
 *  - a peer rejecting its own arguments (ABORTED naming it, SPEC §6.4), or a peer's abort
 *    seen without a verdict within a second (that failure);
 *  - weft_context_abort (ABORTED).
 * A failed context must be destroyed; its destroy does not wait for the peers.
 */
#ifndef WEFT_CONTEXT_H_
#define WEFT_CONTEXT_H_

#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_context_options {
  uint32_t struct_size;
  int32_t rank;           /* -1: from the environment */
  int32_t world_size;     /* -1: from the environment */
  int32_t store_port;     /* -1: from the environment */
  const char* store_host; /* NULL: from the environment */
  /* A backend name ("gloo", "ucx", "self") or a plugin path; NULL: WEFT_BACKEND, else gloo
   * when the world has more than one rank and self otherwise. A name holds at most 64 letters,
   * digits, '_', '-' and '.'; a path (any value with a '/') at most PATH_MAX - 1 bytes, each
   * component at most NAME_MAX, and no control characters. Otherwise INVALID_ARGUMENT naming
   * opts->backend or WEFT_BACKEND and the limit. */
  const char* backend;
  /* Default deadline of every operation; 0: WEFT_TIMEOUT_MS, else 300000 (5 minutes). */
  int64_t timeout_ms;
  /* Deadline of creation (store connection and rendezvous); 0: WEFT_CONNECT_TIMEOUT_MS, else
   * 60000. */
  int64_t connect_timeout_ms;
} weft_context_options_t;

#define WEFT_CONTEXT_OPTIONS_INIT \
  { sizeof(weft_context_options_t), -1, -1, -1, NULL, NULL, 0, 0 }

/* Joins the world. opts NULL (or fields left at their defaults) reads the environment, first
 * match winning: explicit options, WEFT_RANK/WEFT_WORLD_SIZE/WEFT_STORE, torchrun, Open MPI /
 * PMI, Slurm, a single process. Rank 0 hosts the store. Blocks until every rank has joined and
 * the world communicator is connected, or the connect deadline.
 * Errors: INVALID_ARGUMENT (bad options or environment, naming the variable: every WEFT_*
 * variable of libweft and of the plugin is checked, docs/parameters.md), NOT_AVAILABLE (no
 * store address, no plugin), VERSION_MISMATCH (plugin built for another ABI), INVALID_USAGE
 * (inconsistent world: a duplicate rank, a disagreeing world size or a must-match variable
 * that differs from rank 0's, on every rank, naming the ranks and values), TIMEOUT,
 * PEER_FAILURE. */
WEFT_API weft_status_t weft_context_create(const weft_context_options_t* opts,
                                           weft_context_t** ctx);

/* Leaves the world: waits for the context's pending work, then (collectively, within the
 * context's deadline) for every rank to arrive, closes the connections and releases
 * everything. Rank 0 keeps the store up until every rank has left (at most a second more once
 * the context failed). NULL is accepted. A failed context (a sticky error: a dead peer, a
 * timeout, an abort) skips the meeting, so it returns within about a second without
 * weft_context_abort; a failure that arrives during the meeting ends it too (destroy then
 * returns that error). Work still pending at the context's deadline is aborted (its weft_work
 * then reports the failure) and has ended before anything is released; destroy returns
 * TIMEOUT. Should aborted work not end within seconds, the context stays allocated rather
 * than freed under it (TIMEOUT too).
 * Other threads: the handle is dead from the start of the call (their new calls with ctx get
 * WEFT_ERR_INVALID_ARGUMENT), and calls they are already in finish first, up to the context's
 * deadline; then they are aborted as by weft_context_abort (which another thread may also call
 * while destroy runs, to end it early). Meshes, layouts and plans of the context stay usable
 * for metadata; executing on them gives WEFT_ERR_INVALID_ARGUMENT (their context is gone).
 * Point-to-point work still pending is cancelled: its weft_work_wait returns
 * WEFT_ERR_ABORTED. A destroyed or foreign ctx: WEFT_ERR_INVALID_ARGUMENT. */
WEFT_API weft_status_t weft_context_destroy(weft_context_t* ctx);

WEFT_API weft_status_t weft_context_rank(const weft_context_t* ctx, int32_t* rank);
WEFT_API weft_status_t weft_context_world_size(const weft_context_t* ctx, int32_t* world_size);
/* The backend's name ("gloo"), as text (buf, len, needed). */
WEFT_API weft_status_t weft_context_backend_name(const weft_context_t* ctx, char* buf, size_t len,
                                                 size_t* needed);

/* Aborts every operation of the context: blocked calls return WEFT_ERR_ABORTED, later ones
 * fail at once. Any thread, any time (also while another thread destroys ctx), idempotent.
 * The context must then be destroyed. */
WEFT_API weft_status_t weft_context_abort(weft_context_t* ctx);

/* The sticky error of the context: *status is WEFT_OK while healthy, else the first failure
 * (see "Failures" above): PEER_FAILURE with *failed_rank the dead rank, TIMEOUT (*failed_rank
 * -1: the silent rank is not known), ABORTED with *failed_rank the rank that rejected its
 * arguments or called weft_context_abort (-1 when unknown). The message is text
 * (buf, len, needed); buf may be NULL with len 0 to ask only for status and rank. */
WEFT_API weft_status_t weft_context_error(const weft_context_t* ctx, weft_status_t* status,
                                          int32_t* failed_rank, char* buf, size_t len,
                                          size_t* needed);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_CONTEXT_H_ */
