#include "backends/ucx/transport/process_state.hpp"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace weft::backends::ucx_plugin {

ProcessState StateOfProcess(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return ProcessState::kGone;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  // The state follows the command name, which is in parentheses and may hold anything.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size())
    return stat.empty() ? ProcessState::kGone : ProcessState::kRunning;
  switch (stat[close + 2]) {
    case 'Z':
    case 'X':
      return ProcessState::kGone;
    case 'T':
    case 't':
      return ProcessState::kStopped;
    default:
      return ProcessState::kRunning;
  }
}

}  // namespace weft::backends::ucx_plugin
