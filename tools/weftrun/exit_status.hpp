// What weftrun says about a finished rank and which status weftrun itself exits with.
#pragma once

#include <string>

namespace weft::tools {

// weftrun's own exit statuses besides 0, 1 (a rank exited non-zero) and 128+S (signal S).
inline constexpr int kExitUsage = 2;
inline constexpr int kExitTimeout = 124;      // as timeout(1)
inline constexpr int kExitCannotStart = 127;  // as a shell for a command not found
inline constexpr int kExitInternal = 1;

// Whether a waitpid() status is a failure: a non-zero exit or death by a signal.
bool WaitStatusFailed(int wait_status);

// "exited with code 3" or "was killed by signal 9 (Killed)".
std::string DescribeWaitStatus(int wait_status);

// "signal 2 (Interrupt)".
std::string DescribeSignal(int signal);

// weftrun's exit status when a rank's failure ends the job: 1 for a non-zero exit, 128+S
// when killed by signal S (the shell's convention, so scripts can tell the two apart).
int ExitCodeForFailure(int wait_status);

}  // namespace weft::tools
