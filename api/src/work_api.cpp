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
    WEFT_REQUIRE(work);
    return work->state->Wait(timeout_ms);
  });
}

weft_status_t weft_work_test(weft_work_t* work, int32_t* done) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(work);
    WEFT_REQUIRE(done);
    *done = work->state->done() ? 1 : 0;
    return Status::Ok();
  });
}

weft_status_t weft_work_release(weft_work_t* work) {
  return Guard(__func__, [&] {
    std::unique_ptr<weft_work> owned(work);  // the running op keeps its own reference
    return Status::Ok();
  });
}

}  // extern "C"
