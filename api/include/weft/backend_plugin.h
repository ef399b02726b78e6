/* Weft backend plugin ABI, version 1 (SPEC §6.6).
 *
 * A backend plugin is a shared object, libweft-backend-<name>.so, that exports
 *     const weft_backend_plugin_t* weft_backend_plugin_v1(void);
 * The host (libweft) finds it by name on WEFT_PLUGIN_PATH, then next to libweft, or by path.
 * It probes weft_backend_plugin_v1 ... _v9 so it can name the version of a plugin built for
 * another major version, and refuses those with WEFT_ERR_VERSION_MISMATCH.
 *
 * This header is all a plugin may include from Weft (it pulls in status.h, types.h and DLPack).
 *
 * Model:
 *  - init() is called once per context with the world rank and size and the host API: a
 *    logger, a store client (keys are absolute; the host gives each communicator a prefix), an
 *    allocator, an error reporter and the reduction kernels. The plugin keeps the host API
 *    pointer until finalize().
 *  - comm_create() is called by the members of a group only, all with the same rank list and
 *    store prefix; they meet under that prefix. Group indices (0..n-1) name peers and roots.
 *  - Ops take element counts and displacements (in elements), a DLDataType, and a
 *    weft_bk_op_t with the device, stream, deadline and a sequence number. If `req` is NULL
 *    the op blocks until done; otherwise it returns a request to test/wait/cancel/free. A
 *    plugin without WEFT_BK_CAP_ASYNC may complete the op before returning the request.
 *  - Reductions reach the plugin with op sum, max, min or prod (the host composes avg). The
 *    plugin must reduce with host->reduce (or the kernel host->reduce_kernel hands out, ABI
 *    1.2) so that every backend rounds identically.
 *  - A function pointer may be NULL (or its capability bit clear): the host then composes
 *    the op from the plugin's send/recv. send, recv, request_* and comm_* are mandatory.
 *    A reduction (allreduce, reduce_scatter, reduce_scatterv) may also decline one call by
 *    returning WEFT_ERR_UNSUPPORTED for a (dtype, op) it cannot reduce exactly, on memory it
 *    takes: the host then composes that call (ABI 1.3; NCCL lacks int16, uint16, complex prod).
 *  - Errors: return a negative weft_status_t after calling host->set_error(host_data, msg)
 *    with a message naming the peer or argument. A dead peer is WEFT_ERR_PEER_FAILURE, a
 *    passed deadline WEFT_ERR_TIMEOUT, an abort WEFT_ERR_ABORTED. CPU backends return
 *    WEFT_ERR_UNSUPPORTED for device memory.
 *  - Threads: the host issues the ops of one communicator from one thread at a time; abort()
 *    and async_error() may be called from any thread at any time.
 *  - Parameters (ABI 1.3): a plugin that reads WEFT_* environment variables declares them in
 *    its table (params). The host checks their values before init() with the parser the
 *    plugin uses too (common/param_parse.hpp), lists them (weftrun --print-params), and
 *    compares those flagged WEFT_BK_PARAM_MUST_MATCH across the ranks when a context is
 *    created (docs/parameters.md).
 */
#ifndef WEFT_BACKEND_PLUGIN_H_
#define WEFT_BACKEND_PLUGIN_H_

#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_BACKEND_PLUGIN_ABI_MAJOR 1
#define WEFT_BACKEND_PLUGIN_ABI_MINOR 3
#define WEFT_BACKEND_PLUGIN_ABI_VERSION \
  ((WEFT_BACKEND_PLUGIN_ABI_MAJOR << 16) | WEFT_BACKEND_PLUGIN_ABI_MINOR)

/* Capability bits (weft_backend_plugin_t.capabilities). */
#define WEFT_BK_CAP_ALLREDUCE (1ull << 0)
#define WEFT_BK_CAP_ALLGATHER (1ull << 1)
#define WEFT_BK_CAP_ALLGATHERV (1ull << 2)
#define WEFT_BK_CAP_REDUCE_SCATTER (1ull << 3)
#define WEFT_BK_CAP_REDUCE_SCATTERV (1ull << 4)
#define WEFT_BK_CAP_ALLTOALL (1ull << 5)
#define WEFT_BK_CAP_ALLTOALLV (1ull << 6)
#define WEFT_BK_CAP_BROADCAST (1ull << 7)
#define WEFT_BK_CAP_BARRIER (1ull << 8)
#define WEFT_BK_CAP_GROUP (1ull << 9)        /* group_start/group_end batch point-to-point */
#define WEFT_BK_CAP_ASYNC (1ull << 10)       /* requests progress without the caller */
#define WEFT_BK_CAP_DEVICE_CUDA (1ull << 11) /* accepts kDLCUDA buffers */
#define WEFT_BK_CAP_STRIDED (1ull << 12)     /* send_strided/recv_strided (ABI 1.1) */
/* ABI 1.3: members that disagree on an op's counts, dtype, op or root get an error or
 * unspecified output, never a terminated process, a write outside their buffers or a wait past
 * the op's deadline. Without it the host verifies the arguments of every public operation
 * across the members before handing it over (docs/collective_checks.md). */
#define WEFT_BK_CAP_SIZE_SAFE (1ull << 13)
/* ABI 1.3: a pair's point-to-point messages match in posting order and tags are ignored
 * (NCCL). The host then sends no argument records beside the user's messages: in the other
 * direction they would interleave with the user's own messages and break that order. */
#define WEFT_BK_CAP_UNTAGGED_P2P (1ull << 14)

/* Log levels of host->log. */
enum {
  WEFT_LOG_TRACE = 0,
  WEFT_LOG_DEBUG = 1,
  WEFT_LOG_INFO = 2,
  WEFT_LOG_WARN = 3,
  WEFT_LOG_ERROR = 4
};

/* A reduction kernel of the host (ABI 1.2): inout[i] = op(inout[i], in[i]) for count elements,
 * for one (dtype, op) fixed when it was looked up. It checks nothing: inout and in are equal
 * or do not overlap, and both hold count elements. */
typedef void (*weft_bk_reduce_fn)(void* inout, const void* in, uint64_t count);

/* Parameter types (weft_bk_param_t.type, ABI 1.3). An empty value counts as unset. */
enum {
  WEFT_BK_PARAM_INT = 0,    /* a decimal integer in [min, max] */
  WEFT_BK_PARAM_BOOL = 1,   /* 0 or 1 (also true/false, yes/no, any case) */
  WEFT_BK_PARAM_BYTES = 2,  /* bytes in [min, max]; a K, M or G suffix multiplies by 1024^n */
  WEFT_BK_PARAM_MS = 3,     /* milliseconds in [min, max]; with WEFT_BK_PARAM_FOREVER, -1 too */
  WEFT_BK_PARAM_STRING = 4, /* any text */
  WEFT_BK_PARAM_ENUM = 5    /* one of the words of choices (any case) */
};
/* Who should ever set a parameter (weft_bk_param_t.audience). */
enum {
  WEFT_BK_PARAM_USER = 0,   /* a user may need it */
  WEFT_BK_PARAM_TUNING = 1, /* algorithm thresholds: for benchmarks and tuning runs */
  WEFT_BK_PARAM_DEBUG = 2,  /* for tests and debugging */
  WEFT_BK_PARAM_LAUNCH = 3  /* set by a launcher (weftrun, a job script), not by hand */
};
/* weft_bk_param_t.flags */
#define WEFT_BK_PARAM_MUST_MATCH (1u << 0) /* equal on every rank, or context creation fails */
#define WEFT_BK_PARAM_FOREVER (1u << 1)    /* WEFT_BK_PARAM_MS: -1 means no deadline */
#define WEFT_BK_PARAM_SECRET (1u << 2)     /* never shown in listings or messages, never compared */

/* One environment variable a plugin reads (ABI 1.3), declared once: the host parses and lists
 * it from this, and the plugin reads it through the same parser. Static storage. */
typedef struct weft_bk_param {
  uint32_t struct_size; /* sizeof(weft_bk_param_t) */
  int32_t type;         /* WEFT_BK_PARAM_INT ... WEFT_BK_PARAM_ENUM */
  const char* name;     /* the variable: "WEFT_<PLUGIN>_..." */
  /* The value when unset, written as a user would ("256K", "1"); NULL: no default (the
   * plugin decides, and doc says how). */
  const char* default_value;
  int64_t min; /* inclusive bounds of INT, BYTES and MS values */
  int64_t max;
  const char* choices; /* ENUM: the words, separated by '|' ("auto|on|off"); else NULL */
  const char* doc;     /* one line for the listing and docs/parameters.md */
  int32_t audience;    /* WEFT_BK_PARAM_USER ... WEFT_BK_PARAM_LAUNCH */
  uint32_t flags;      /* WEFT_BK_PARAM_MUST_MATCH, WEFT_BK_PARAM_FOREVER */
} weft_bk_param_t;

typedef struct weft_bk_comm weft_bk_comm_t;       /* a plugin's communicator */
typedef struct weft_bk_request weft_bk_request_t; /* a plugin's pending operation */

/* What the host gives a plugin. Every callback is thread-safe. */
typedef struct weft_bk_host_api {
  uint32_t struct_size;
  uint32_t abi_version; /* WEFT_BACKEND_PLUGIN_ABI_VERSION of the host */
  void* host_data;      /* first argument of every callback */
  void (*log)(void* host_data, int32_t level, const char* message);
  /* Records the message of the error the plugin is about to return (thread-local). */
  void (*set_error)(void* host_data, const char* message);
  /* Store (SPEC §8). timeout_ms < 0: no deadline. get blocks until the key exists; with
   * buf too small it returns WEFT_ERR_INVALID_ARGUMENT and sets *len to the size needed. */
  weft_status_t (*store_set)(void* host_data, const char* key, const void* value, size_t len,
                             int64_t timeout_ms);
  weft_status_t (*store_get)(void* host_data, const char* key, void* buf, size_t cap, size_t* len,
                             int64_t timeout_ms);
  weft_status_t (*store_wait)(void* host_data, const char* const* keys, size_t nkeys,
                              int64_t timeout_ms);
  weft_status_t (*store_add)(void* host_data, const char* key, int64_t delta, int64_t* value,
                             int64_t timeout_ms);
  /* Host memory, aligned to `alignment` (a power of two). */
  void* (*alloc)(void* host_data, size_t bytes, size_t alignment);
  void (*free)(void* host_data, void* ptr);
  /* inout[i] = op(inout[i], in[i]) for count elements of dtype; op is sum, max, min or prod
   * with the exact rules of SPEC §2.4 (integers wrap, bool or/and). */
  weft_status_t (*reduce)(void* host_data, DLDataType dtype, int32_t op, void* inout,
                          const void* in, uint64_t count);
  /* ABI 1.2, present when struct_size covers it (else, or NULL, use reduce): the kernel that
   * reduce runs for (dtype, op), to call directly, or NULL for a pair reduce rejects (no error
   * is set; reduce with count 0 gives the message). Valid until finalize(). Why: a small
   * collective reduces a few bytes, and reduce's per-call checks cost more than that. */
  weft_bk_reduce_fn (*reduce_kernel)(void* host_data, DLDataType dtype, int32_t op);
} weft_bk_host_api_t;

/* Per-context facts handed to init(). */
typedef struct weft_bk_init_args {
  uint32_t struct_size;
  int32_t world_rank;
  int32_t world_size;
  int32_t local_rank;
  int32_t local_world_size;
  int32_t reserved;
  int64_t timeout_ms; /* the context's default deadline */
} weft_bk_init_args_t;

/* Per-op arguments. */
typedef struct weft_bk_op {
  uint32_t struct_size;
  uint32_t reserved;
  DLDevice device;    /* where the buffers live */
  void* stream;       /* NULL for host memory */
  int64_t timeout_ms; /* the op's deadline from now; < 0 none */
  uint64_t seq;       /* per-communicator operation number, the same on every member */
  /* ABI 1.3, present when struct_size covers it (else 0): WEFT_BK_OP_* bits. */
  uint32_t flags;
  uint32_t reserved2;
} weft_bk_op_t;

/* weft_bk_op_t.flags. UNVERIFIED_SIZE: a send or recv whose length the host has not agreed
 * with the peer (the user's weft_send/weft_recv). A plugin without WEFT_BK_CAP_SIZE_SAFE must
 * make a length mismatch of such a message fail the receive (WEFT_ERR_INVALID_ARGUMENT) and
 * let the send complete, instead of terminating or overrunning (ABI 1.3). */
#define WEFT_BK_OP_UNVERIFIED_SIZE (1u << 0)
/* The size of an ABI 1.0-1.2 weft_bk_op_t, the smallest a plugin must accept. */
#define WEFT_BK_OP_V1_0_SIZE offsetof(weft_bk_op_t, flags)

/* A strided region of host memory (ABI 1.1): the elements at
 *   base + sum over d of i_d * strides[d]   (bytes),  0 <= i_d < shape[d],
 * taken in row-major order of (i_0, ..., i_{ndim-1}), each item_bytes long. Regions may not
 * overlap themselves. The bytes on the wire are the elements in that order, so a strided
 * send meets an ordinary receive of the same length and the other way round. */
#define WEFT_BK_MAX_DIMS 8
typedef struct weft_bk_strided {
  uint32_t struct_size;
  uint32_t ndim; /* 1..WEFT_BK_MAX_DIMS */
  uint64_t item_bytes;
  uint64_t shape[WEFT_BK_MAX_DIMS];
  int64_t strides[WEFT_BK_MAX_DIMS];
} weft_bk_strided_t;

typedef struct weft_backend_plugin {
  uint32_t struct_size;
  uint32_t abi_version; /* WEFT_BACKEND_PLUGIN_ABI_VERSION the plugin was built with */
  const char* name;     /* "gloo", "ucx", ... */
  uint64_t capabilities;

  weft_status_t (*init)(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                        void** state);
  void (*finalize)(void* state);
  /* Closes every connection; pending and later ops fail with `status` (PEER_FAILURE naming
   * `failed_rank`, or ABORTED). Callable from any thread. */
  void (*abort)(void* state, weft_status_t status, int32_t failed_rank, const char* reason);
  /* The first asynchronous error the plugin saw, or WEFT_OK. */
  weft_status_t (*async_error)(void* state, int32_t* failed_rank);

  weft_status_t (*comm_create)(void* state, const int32_t* world_ranks, int32_t nranks,
                               int32_t my_index, const char* store_prefix, int64_t timeout_ms,
                               weft_bk_comm_t** comm);
  void (*comm_destroy)(weft_bk_comm_t* comm);

  weft_status_t (*allreduce)(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                             DLDataType dtype, int32_t op, const weft_bk_op_t* args,
                             weft_bk_request_t** req);
  /* recv holds nranks * count elements in group order. */
  weft_status_t (*allgather)(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                             DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req);
  weft_status_t (*allgatherv)(weft_bk_comm_t* comm, const void* send, uint64_t send_count,
                              void* recv, const uint64_t* recv_counts, const uint64_t* recv_displs,
                              DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req);
  /* send holds nranks * count elements; member i receives block i, reduced. */
  weft_status_t (*reduce_scatter)(weft_bk_comm_t* comm, const void* send, void* recv,
                                  uint64_t count, DLDataType dtype, int32_t op,
                                  const weft_bk_op_t* args, weft_bk_request_t** req);
  /* send holds sum(counts) elements, block i (counts[i] elements) for member i. */
  weft_status_t (*reduce_scatterv)(weft_bk_comm_t* comm, const void* send, void* recv,
                                   const uint64_t* counts, DLDataType dtype, int32_t op,
                                   const weft_bk_op_t* args, weft_bk_request_t** req);
  weft_status_t (*alltoall)(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                            DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req);
  weft_status_t (*alltoallv)(weft_bk_comm_t* comm, const void* send, const uint64_t* send_counts,
                             const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                             const uint64_t* recv_displs, DLDataType dtype,
                             const weft_bk_op_t* args, weft_bk_request_t** req);
  weft_status_t (*broadcast)(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                             int32_t root, const weft_bk_op_t* args, weft_bk_request_t** req);
  weft_status_t (*barrier)(weft_bk_comm_t* comm, const weft_bk_op_t* args, weft_bk_request_t** req);
  /* Point-to-point; tags >= 0 match in order per (peer, tag). */
  weft_status_t (*send)(weft_bk_comm_t* comm, const void* buf, uint64_t count, DLDataType dtype,
                        int32_t peer, int64_t tag, const weft_bk_op_t* args,
                        weft_bk_request_t** req);
  weft_status_t (*recv)(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                        int32_t peer, int64_t tag, const weft_bk_op_t* args,
                        weft_bk_request_t** req);
  weft_status_t (*group_start)(weft_bk_comm_t* comm);
  weft_status_t (*group_end)(weft_bk_comm_t* comm);

  /* *done = 1 when the request finished (successfully or not; wait returns which). */
  weft_status_t (*request_test)(weft_bk_request_t* req, int32_t* done);
  /* Waits up to timeout_ms (< 0 forever): WEFT_OK, WEFT_IN_PROGRESS if that wait elapsed, or
   * the op's error (WEFT_ERR_TIMEOUT only when the op's own deadline passed). */
  weft_status_t (*request_wait)(weft_bk_request_t* req, int64_t timeout_ms);
  weft_status_t (*request_cancel)(weft_bk_request_t* req);
  void (*request_free)(weft_bk_request_t* req);

  /* ABI 1.1, present when struct_size covers them (NULL or absent: the host packs strided
   * data into contiguous buffers itself). Point-to-point of a strided region, in order with
   * send/recv per (peer, tag); a plugin that can move strided data without packing (iovec
   * transfers, cross-memory reads) saves the host a copy on each side. */
  weft_status_t (*send_strided)(weft_bk_comm_t* comm, const void* base,
                                const weft_bk_strided_t* layout, int32_t peer, int64_t tag,
                                const weft_bk_op_t* args, weft_bk_request_t** req);
  weft_status_t (*recv_strided)(weft_bk_comm_t* comm, void* base, const weft_bk_strided_t* layout,
                                int32_t peer, int64_t tag, const weft_bk_op_t* args,
                                weft_bk_request_t** req);

  /* ABI 1.3, present when struct_size covers them: the WEFT_* variables the plugin reads,
   * num_params descriptors params[0].struct_size bytes apart (all of one struct_size), in
   * static storage. NULL / 0: none. A malformed descriptor fails the load (WEFT_ERR_PLUGIN); a
   * malformed value fails context creation naming the variable (WEFT_ERR_INVALID_ARGUMENT). */
  const weft_bk_param_t* params;
  size_t num_params;
} weft_backend_plugin_t;

/* The size of an ABI 1.0 table, the smallest a host accepts. */
#define WEFT_BACKEND_PLUGIN_V1_0_SIZE offsetof(weft_backend_plugin_t, send_strided)
/* The size of an ABI 1.2 table (before params): such a plugin declares no parameters. */
#define WEFT_BACKEND_PLUGIN_V1_2_SIZE offsetof(weft_backend_plugin_t, params)

typedef const weft_backend_plugin_t* (*weft_backend_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_BACKEND_PLUGIN_H_ */
