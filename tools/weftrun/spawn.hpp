// Starting one rank: a child process in its own process group, its stdout and stderr on
// pipes that weftrun reads.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "common/result.hpp"
#include "tools/weftrun/unique_fd.hpp"

namespace weft::tools {

struct SpawnSpec {
  std::span<const std::string> command;  // program (looked up in PATH) and arguments
  std::span<const std::string> env;      // "NAME=VALUE" entries
  int stdin_fd = -1;                     // becomes the child's stdin
  std::optional<rlimit> child_fd_limit;  // restored in the child (see RaiseFdLimit)
};

struct SpawnedRank {
  pid_t pid = -1;  // also the id of its process group
  UniqueFd out;    // read ends, non-blocking
  UniqueFd err;
};

// Starts the program and returns once it has been exec'd, or with an error naming the
// program and the reason ("No such file or directory") when it could not be. The child gets
// its own process group, so that signals reach its descendants too and a terminal's Ctrl-C
// reaches the ranks only through weftrun (once, not twice). On Linux it is killed when
// weftrun dies, so an abruptly killed weftrun leaves no stray ranks.
Result<SpawnedRank> SpawnRank(const SpawnSpec& spec);

// Raises this process's soft limit on open files to `needed` if it is lower (weftrun holds
// two pipes per rank; the common default of 1024 would stop at about 500 ranks). Returns the
// previous limit for the children, which did not ask for more; nullopt if unchanged.
std::optional<rlimit> RaiseFdLimit(size_t needed);

}  // namespace weft::tools
