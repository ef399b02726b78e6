// Launch-environment detection (SPEC §8): one answer to "who am I, how many are we, and where
// is the store", whichever launcher started the process. The rest of Weft reads only the
// LaunchEnv this returns, never the launcher variables themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "backends/env/host_port.hpp"
#include "backends/env/slurm_nodelist.hpp"
#include "backends/env/slurm_port.hpp"
#include "common/result.hpp"

namespace weft::backends {

// Explicit options from weft_context_options_t. -1 / empty means unset. rank and world_size
// must be given together; so must store_host and store_port.
struct LaunchOptions {
  int32_t rank = -1;
  int32_t world_size = -1;
  std::string store_host;
  int32_t store_port = -1;
  int32_t local_rank = -1;        // optional, only read with rank and world_size
  int32_t local_world_size = -1;  // optional, only read with rank and world_size
};

// The detected launch. Invariants: 0 <= rank < world_size, 0 <= local_rank < local_world_size
// <= world_size, and store_host is empty exactly when world_size == 1 (a lone process needs
// no store, so store variables are then ignored).
struct LaunchEnv {
  int32_t rank = 0;
  int32_t world_size = 1;
  int32_t local_rank = 0;
  int32_t local_world_size = 1;
  std::string store_host;
  uint16_t store_port = 0;
  // Which rule matched: "options", "weft", "torchrun", "openmpi", "pmi", "slurm", "single".
  std::string source;
  // Other launchers' rank and world-size variables that were set but disagreed, and lost to
  // the first match: one line naming the winner and them, logged at info. Empty when none.
  std::string ignored;

  // Rank 0 hosts the store (it binds exactly store_host); the others connect to it.
  bool hosts_store() const { return rank == 0 && world_size > 1; }
};

// Looks a variable up; nullptr when unset. Tests inject a map so that no test touches the
// real environment. An empty std::function means the process environment.
using GetEnv = std::function<const char*(const char*)>;

// The process environment (std::getenv). Not safe against a concurrent setenv, like getenv.
GetEnv ProcessGetEnv();

// Detects the launch, first match wins: explicit options, WEFT_*, torchrun, Open MPI, PMI,
// Slurm, else a single process. WEFT_STORE overrides the store address of every convention
// except explicit options that name one. Errors:
//   kInvalidArgument: a malformed, out-of-range or inconsistent value, a partial set of a
//     convention's variables, or a world of more than one with no store address. The message
//     names the variable (or option) and its value.
//   kNotAvailable: Open MPI or PMI detected but neither WEFT_STORE nor MASTER_ADDR and
//     MASTER_PORT give a store address.
Result<LaunchEnv> DetectLaunchEnv(const LaunchOptions& opts, const GetEnv& getenv = {});

}  // namespace weft::backends
