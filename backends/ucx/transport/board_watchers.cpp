#include "backends/ucx/transport/board_watchers.hpp"

namespace weft::backends::ucx_plugin {

void BoardWatchers::Unwatch(BoardWaiter* w) {
  for (size_t i = 0; i < watchers_.size(); ++i)
    if (watchers_[i] == w) {
      watchers_[i] = watchers_.back();
      watchers_.pop_back();
      return;
    }
}

void BoardWatchers::Adopt(std::shared_ptr<BoardWaiter> queue) {
  // Orphans that finished go now (each unwatched itself when it emptied).
  std::erase_if(orphans_, [](const std::shared_ptr<BoardWaiter>& q) { return q->Idle(); });
  if (!queue->Idle()) orphans_.push_back(std::move(queue));
}

}  // namespace weft::backends::ucx_plugin
