// What another process of this host is doing, as far as a wait on it cares: gone, stopped
// (SIGSTOP, a debugger) or running. A stopped process is alive: its endpoints stay up and UCX's
// keepalive sees nothing wrong, so a wait that only asks "alive?" waits for it forever; every
// wait also has a deadline (SPEC §10).
#pragma once

#include <sys/types.h>

namespace weft::backends::ucx_plugin {

enum class ProcessState { kGone, kStopped, kRunning };

// From /proc/<pid>/stat: a zombie counts as gone (a killed process its parent has not reaped
// yet writes nothing more), stopped and traced-stopped as stopped. A system call and a file
// read: for slow paths only.
ProcessState StateOfProcess(pid_t pid);

// Whether process `pid` is still there (exists and is no zombie).
inline bool ProcessAlive(pid_t pid) { return StateOfProcess(pid) != ProcessState::kGone; }

}  // namespace weft::backends::ucx_plugin
