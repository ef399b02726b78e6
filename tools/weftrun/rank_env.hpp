// The environment each rank starts with (SPEC §8 "Environment": the WEFT_* variables, which
// take precedence over torchrun, MPI and Slurm variables that may also be inherited).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace weft::tools {

struct JobEnv {
  int world_size = 0;
  std::string store;                   // "127.0.0.1:PORT"
  std::optional<std::string> backend;  // WEFT_BACKEND; unset: whatever `base` has
  std::string token;                   // WEFT_STORE_TOKEN: the job's secret (job_token.hpp)
};

// `base` ("NAME=VALUE" entries) without the variables weftrun sets, followed by WEFT_RANK,
// WEFT_WORLD_SIZE, WEFT_LOCAL_RANK, WEFT_LOCAL_WORLD_SIZE, WEFT_STORE, WEFT_STORE_TOKEN and
// WEFT_BACKEND if given. On a single node the local rank and size equal the global ones.
std::vector<std::string> RankEnvironment(std::span<const std::string> base, const JobEnv& job,
                                         int rank);

// weftrun's own environment as "NAME=VALUE" entries.
std::vector<std::string> CurrentEnvironment();

}  // namespace weft::tools
