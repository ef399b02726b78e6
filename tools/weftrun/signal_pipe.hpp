// SIGINT, SIGTERM and SIGCHLD as events on a pipe (the self-pipe trick): weftrun's poll()
// loop watches it next to the ranks' output, so it sleeps until something happens and never
// misses a signal that lands between two checks.
#pragma once

#include <signal.h>

#include <array>

#include "common/status.hpp"
#include "tools/weftrun/unique_fd.hpp"

namespace weft::tools {

// One per process: the handlers are process-wide. SIGPIPE is ignored while it is installed,
// so that a reader of weftrun's output going away does not kill the supervisor of the ranks.
class SignalPipe {
 public:
  SignalPipe() = default;
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;
  ~SignalPipe();  // restores the previous dispositions

  Status Install();
  int fd() const { return read_.get(); }

  struct Events {
    bool child_exited = false;
    int stop_signal = 0;  // SIGINT or SIGTERM received since the last Take(), else 0
  };
  // Empties the pipe and returns what happened since the last call.
  Events Take();

 private:
  UniqueFd read_;
  UniqueFd write_;
  std::array<struct sigaction, 4> previous_{};
  bool installed_ = false;
};

}  // namespace weft::tools
