// Slurm's compressed per-node task counts ("2(x3),1" = 2, 2, 2, 1), as in
// SLURM_STEP_TASKS_PER_NODE. Slurm gives no local world size variable; this is where it is.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "backends/env/env_reader.hpp"
#include "common/result.hpp"

namespace weft::backends {

// The task count of node `node_id` (0-based) in a Slurm tasks-per-node list. Walks the
// repeat groups instead of expanding them, so a huge "(x N)" costs nothing. kInvalidArgument,
// quoting the list, when it is malformed or has fewer than node_id + 1 nodes.
Result<int64_t> SlurmTasksOnNode(std::string_view list, int64_t node_id);

namespace detail {

// The local world size under Slurm from SLURM_NODEID and SLURM_STEP_TASKS_PER_NODE (else
// SLURM_TASKS_PER_NODE), named after the list variable; nullopt when either is unset.
Result<std::optional<NamedInt>> ReadSlurmLocalWorldSize(const EnvReader& env);

}  // namespace detail
}  // namespace weft::backends
