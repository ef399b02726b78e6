// extern "C" layer for asynchronous work handles.
#include <memory>

#include "api/src/guard.hpp"
#include "api/src/work.hpp"
#include "weft/work.h"

using weft::Status;
using weft::api::Guard;

extern "C" {

weft_status_t weft_work_wait(weft_work_t* work, int64_t timeout_ms) {
  return Guard(__func__, [&] {
    WEFT_USE(w, work);
    return w->state->Wait(timeout_ms);
  });
}

weft_status_t weft_work_test(weft_work_t* work, int32_t* done) {
  return Guard(__func__, [&] {
    WEFT_USE(w, work);
    WEFT_REQUIRE(done);
    *done = w->state->done() ? 1 : 0;
    return Status::Ok();
  });
}

weft_status_t weft_work_release(weft_work_t* work) {
  // The running operation keeps its own reference to the state; a wait in another thread
  // keeps the handle's object until it returns.
  return Guard(__func__, [&] { return weft::api::Destroy(work, "work"); });
}

}  // extern "C"
