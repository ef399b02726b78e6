// request_test / request_wait / request_cancel / request_free: progress without spinning.
#pragma once

#include <cstdint>

#include "backends/ucx/request.hpp"

namespace weft::backends::ucx_plugin {

weft_status_t TestRequest(Request* r, int32_t* done);
// Progresses in a short burst, then sleeps on the worker's event fd (ucp_worker_arm + poll)
// until an event, an abort, the op's deadline or this wait's own timeout.
weft_status_t WaitRequest(Request* r, int64_t timeout_ms);
weft_status_t CancelRequest(Request* r);
void FreeRequest(Request* r);

}  // namespace weft::backends::ucx_plugin
