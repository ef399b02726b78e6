// The calls waiting on boards (board.hpp): State::Progress moves them on, State::Sleep looks
// at them once more before it sleeps; and the board queues of destroyed communicators that
// still have calls to finish. A component of State (state.hpp), under its lock.
#pragma once

#include <memory>
#include <vector>

#include "backends/ucx/transport/board.hpp"

namespace weft::backends::ucx_plugin {

class BoardWatchers {
 public:
  void Watch(BoardWaiter* w) { watchers_.push_back(w); }
  void Unwatch(BoardWaiter* w);
  // Keeps the board queue of a destroyed communicator while it still has calls to finish.
  void Adopt(std::shared_ptr<BoardWaiter> queue);
  // Drops the adopted queues (teardown).
  void ClearAdopted() { orphans_.clear(); }

  bool empty() const { return watchers_.empty(); }
  // Something can be consumed now by one of the calls.
  bool AnyArrived() const {
    for (const BoardWaiter* w : watchers_)
      if (w->Arrived()) return true;
    return false;
  }
  // Moves every call on. Backwards: a queue that empties leaves the list (its place taken by
  // the last one, which was already visited).
  void Advance() {
    for (size_t i = watchers_.size(); i-- > 0;)
      if (i < watchers_.size()) watchers_[i]->Advance();
  }

 private:
  std::vector<BoardWaiter*> watchers_;
  std::vector<std::shared_ptr<BoardWaiter>> orphans_;
};

}  // namespace weft::backends::ucx_plugin
