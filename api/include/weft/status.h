/* Weft C ABI: status codes, versions and the last-error message.
 *
 * Conventions shared by every call of the ABI (SPEC §6.1):
 *  - Every call returns a weft_status_t. WEFT_OK (0) is success, WEFT_IN_PROGRESS (1) says an
 *    asynchronous operation has not finished, negative values are errors. The numbers of the
 *    codes below never change; new codes are only appended.
 *  - On failure, weft_last_error() returns a message for the calling thread that names the
 *    function, the offending argument and its value, e.g.
 *    "weft_layout_create: placements[1] shards tensor dim 3 but the tensor has 2 dims".
 *  - Handles and scalar out-parameters are written only on success. After a failed or aborted
 *    operation an output buffer's content is unspecified and the input buffer is unmodified.
 *  - Calls that return text take (char* buf, size_t len, size_t* needed): they always set
 *    *needed (bytes including the terminating NUL) and write buf only when len >= *needed;
 *    otherwise they return WEFT_ERR_INVALID_ARGUMENT naming the size. Nothing is truncated.
 *  - No call throws, aborts the process or lets a C++ exception out.
 */
#ifndef WEFT_STATUS_H_
#define WEFT_STATUS_H_

#include <stdint.h>

#if defined(_WIN32)
#define WEFT_API
#else
#define WEFT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t weft_status_t;

enum {
  WEFT_OK = 0,
  WEFT_IN_PROGRESS = 1,
  WEFT_ERR_INVALID_ARGUMENT = -1, /* a malformed or inconsistent argument */
  WEFT_ERR_INVALID_USAGE = -2,    /* a valid call at the wrong time or on the wrong object */
  WEFT_ERR_UNSUPPORTED = -3,      /* valid, but not implemented here (e.g. device memory) */
  WEFT_ERR_NOT_AVAILABLE = -4,    /* a resource or configuration is missing */
  WEFT_ERR_VERSION_MISMATCH = -5, /* a plugin or struct of an unsupported version */
  WEFT_ERR_OUT_OF_MEMORY = -6,
  WEFT_ERR_TIMEOUT = -7,      /* the operation's deadline passed */
  WEFT_ERR_PEER_FAILURE = -8, /* another rank died or its connection dropped */
  WEFT_ERR_ABORTED = -9,      /* weft_context_abort, or a peer rejected the operation */
  WEFT_ERR_SYSTEM = -10,      /* an operating-system call failed */
  WEFT_ERR_BACKEND = -11,     /* the communication library reported an error */
  WEFT_ERR_PLUGIN = -12,      /* a plugin misbehaved */
  WEFT_ERR_INTERNAL = -13     /* a bug in Weft: please report it */
};

#define WEFT_VERSION_MAJOR 1
#define WEFT_VERSION_MINOR 0
#define WEFT_VERSION_PATCH 0

/* (major << 16) | minor of the library actually loaded. A program built against headers of
 * major M works with any library of major M and a minor at least the headers'. Thread-safe. */
WEFT_API uint32_t weft_abi_version(void);

/* "1.0.0" plus build details; static storage, never NULL. Thread-safe. */
WEFT_API const char* weft_version_string(void);

/* Static text naming a status ("WEFT_ERR_TIMEOUT: ..."); unknown values give
 * "unknown weft status". Never NULL. Thread-safe. */
WEFT_API const char* weft_status_string(weft_status_t status);

/* The message of the last failed call on this thread, or "" if none failed yet. The pointer
 * stays valid until this thread's next failing Weft call. Successful calls leave it alone. */
WEFT_API const char* weft_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_STATUS_H_ */
