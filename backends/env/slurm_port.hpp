// The store port under Slurm when WEFT_STORE_PORT is unset.
#pragma once

#include <cstdint>

namespace weft::backends {

inline constexpr uint16_t kSlurmPortBase = 20000;
inline constexpr uint16_t kSlurmPortSpan = 40000;  // ports [20000, 60000)

// Every task of a step must agree on the port without communicating, so it is a pure function
// of the ids they share:
//   port = 20000 + (job_id + 24721 * step_id) mod 40000   (mathematical mod, never negative)
// Consecutive jobs get consecutive ports, so two jobs whose store lands on the same node
// collide only when their ids differ by a multiple of 40000. 24721 (about 40000 / golden ratio,
// coprime to 40000) spreads the steps of one job far apart, so that step s of job j does not
// take the port of job j + 1 or j + 2 either.
uint16_t SlurmDefaultPort(int64_t job_id, int64_t step_id);

}  // namespace weft::backends
