// Completion state shared by an operation running in the background and its weft_work_t
// handle; whichever is released last frees it (that is how weft_work_release detaches).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "api/src/handle_ref.hpp"
#include "common/status.hpp"
#include "weft/types.h"

namespace weft::api {

class WorkState {
 public:
  void Complete(Status s);
  bool done() const;
  // OK, the op's error, or kInProgress when `timeout_ms` (< 0: forever) elapsed first.
  Status Wait(int64_t timeout_ms) const;
  // For a posted point-to-point request: completion is the backend request's, so waits and
  // tests are delegated (wait returns kInProgress when its own timeout elapses).
  void Delegate(std::function<Status(int64_t)> wait);

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool done_ = false;
  Status status_;
  std::function<Status(int64_t)> delegate_;  // set once, before the handle is shared
};

// What a weft_work_t names.
struct WorkObject {
  std::shared_ptr<WorkState> state;
};
template <>
struct HandleTraits<weft_work> {
  using Object = WorkObject;
  static constexpr HandleKind kKind = HandleKind::kWork;
};

// Hands out a work handle for `state` into *work.
Status PublishWork(std::shared_ptr<WorkState> state, weft_work_t** work);
// A handle to work that is already complete (an execution with nothing to do on this rank).
Status PublishDoneWork(weft_work_t** work);

}  // namespace weft::api
