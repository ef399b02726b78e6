// Where the store is, according to each kind of variable. Each reader returns nullopt when
// its variables are unset, and an error when they are set but wrong, so that a typo is never
// silently skipped in favour of the next source. Internal to backends/env.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/env/env_reader.hpp"

namespace weft::backends::detail {

struct StoreAddress {
  std::string host;
  uint16_t port = 0;
};
using MaybeStore = std::optional<StoreAddress>;

// WEFT_STORE=host:port, the override every convention honours.
Result<MaybeStore> StoreFromWeftStore(const EnvReader& env);

// MASTER_ADDR and MASTER_PORT (torchrun's names, also the usual way to give MPI jobs a
// rendezvous point). Setting one without the other is an error.
Result<MaybeStore> StoreFromMaster(const EnvReader& env);

// Slurm: the first host of SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST; the port from
// WEFT_STORE_PORT, else SlurmDefaultPort(SLURM_JOB_ID, SLURM_STEP_ID).
Result<MaybeStore> StoreFromSlurm(const EnvReader& env);

}  // namespace weft::backends::detail
