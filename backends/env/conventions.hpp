// The launch conventions DetectLaunchEnv tries, in order. Internal to backends/env.
#pragma once

#include <optional>
#include <span>

#include "backends/env/env_reader.hpp"
#include "backends/env/launch_env.hpp"
#include "backends/env/store_address.hpp"

namespace weft::backends::detail {

using MaybeEnv = std::optional<LaunchEnv>;

// Where a convention's store address may come from, after WEFT_STORE.
enum class StoreRule {
  kWeftStoreOnly,  // WEFT_* itself: WEFT_STORE is its store variable
  kOrMaster,       // then MASTER_ADDR and MASTER_PORT
  kOrSlurm,        // then the Slurm node list and WEFT_STORE_PORT or the derived port
};

// A launcher that exports rank and world size as a pair of variables.
struct RankConvention {
  const char* source;   // LaunchEnv::source
  const char* display;  // for messages
  const char* rank_var;
  const char* size_var;
  const char* local_rank_var = nullptr;  // nullptr: not given by this launcher
  const char* local_size_var = nullptr;  // nullptr: not given, or derived
  // Derives the local world size where the launcher has no variable for it (Slurm).
  Result<std::optional<NamedInt>> (*derive_local_size)(const EnvReader& env) = nullptr;
  // Whether size_var alone marks this launcher. Not for Slurm: an salloc shell exports
  // SLURM_NTASKS without being one of the tasks.
  bool size_alone_detects;
  StoreRule store;
  Code missing_store_code;  // kNotAvailable where the launcher never gives an address
  const char* missing_store_hint;
};

// WEFT_*, torchrun, Open MPI, PMI, Slurm: the order of SPEC §8.
std::span<const RankConvention> RankConventions();

// nullopt when none of the convention's detecting variables is set.
Result<MaybeEnv> DetectRankConvention(const RankConvention& c, const EnvReader& env);

// nullopt when neither options.rank nor options.world_size is set.
Result<MaybeEnv> DetectFromOptions(const LaunchOptions& opts, const EnvReader& env);

// When other launchers' rank or world-size variables are set and disagree with `won` (from
// `winner`, or from the options when null): one line naming what won and what was ignored.
// Empty when nothing disagrees.
std::string DescribeIgnored(const LaunchEnv& won, const RankConvention* winner,
                            const EnvReader& env);

// WEFT_STORE, then the rule's own source; nullopt when none is set.
Result<MaybeStore> ConventionStore(StoreRule rule, const EnvReader& env);

}  // namespace weft::backends::detail
