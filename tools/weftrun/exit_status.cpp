#include "tools/weftrun/exit_status.hpp"

#include <sys/wait.h>

#include <cstring>

namespace weft::tools {

bool WaitStatusFailed(int wait_status) {
  return !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0;
}

std::string DescribeSignal(int signal) {
  const char* name = ::strsignal(signal);
  return "signal " + std::to_string(signal) + " (" + (name ? name : "unknown") + ")";
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with code " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    std::string text = "was killed by " + DescribeSignal(WTERMSIG(wait_status));
    if (WCOREDUMP(wait_status)) text += ", core dumped";
    return text;
  }
  return "ended with wait status " + std::to_string(wait_status);
}

int ExitCodeForFailure(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace weft::tools
