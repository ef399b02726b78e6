/* Weft C ABI: asynchronous work (SPEC §6.3).
 *
 * A communicating call given a non-NULL `work` returns at once with a handle. The operation
 * then runs in the background in issue order; its buffers must stay valid until it completes.
 */
#ifndef WEFT_WORK_H_
#define WEFT_WORK_H_

#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Waits up to timeout_ms (< 0: forever) for the work. Returns WEFT_OK when it completed,
 * WEFT_IN_PROGRESS when this wait's own timeout elapsed (the operation goes on), or the
 * operation's error — WEFT_ERR_TIMEOUT only when the operation's deadline passed. Thread-safe;
 * several threads may wait on one work. */
WEFT_API weft_status_t weft_work_wait(weft_work_t* work, int64_t timeout_ms);

/* Non-blocking: *done = 1 when the work has finished (wait then returns how). */
WEFT_API weft_status_t weft_work_test(weft_work_t* work, int32_t* done);

/* Releases the handle. Incomplete work is detached: it still runs to completion, and its
 * buffers must stay valid until then. A wait another thread is in on the handle returns
 * normally. NULL is accepted; a released or foreign handle gives WEFT_ERR_INVALID_ARGUMENT.
 * Work may outlive its context: completed work keeps its outcome; a point-to-point request
 * still pending when the context was destroyed reports WEFT_ERR_ABORTED. */
WEFT_API weft_status_t weft_work_release(weft_work_t* work);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_WORK_H_ */
