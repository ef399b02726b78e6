// The launchers that export rank and world size as a pair of variables, as one table: they
// differ only in names and in where the store address may come from, so one code path reads
// them all and every launcher gets the same checks and the same messages.
#include <cstdint>

#include "backends/env/conventions.hpp"
#include "backends/env/launch_checks.hpp"
#include "backends/env/slurm_tasks_per_node.hpp"

namespace weft::backends::detail {
namespace {

constexpr const char* kMasterHint = "set WEFT_STORE=host:port or MASTER_ADDR and MASTER_PORT";

constexpr RankConvention kConventions[] = {
    {.source = "weft",
     .display = "WEFT",
     .rank_var = "WEFT_RANK",
     .size_var = "WEFT_WORLD_SIZE",
     .local_rank_var = "WEFT_LOCAL_RANK",
     .local_size_var = "WEFT_LOCAL_WORLD_SIZE",
     .size_alone_detects = true,
     .store = StoreRule::kWeftStoreOnly,
     .missing_store_code = Code::kInvalidArgument,
     .missing_store_hint = "set WEFT_STORE=host:port"},
    {.source = "torchrun",
     .display = "torchrun",
     .rank_var = "RANK",
     .size_var = "WORLD_SIZE",
     .local_rank_var = "LOCAL_RANK",
     .local_size_var = "LOCAL_WORLD_SIZE",
     .size_alone_detects = true,
     .store = StoreRule::kOrMaster,
     .missing_store_code = Code::kInvalidArgument,
     .missing_store_hint = kMasterHint},
    {.source = "openmpi",
     .display = "Open MPI",
     .rank_var = "OMPI_COMM_WORLD_RANK",
     .size_var = "OMPI_COMM_WORLD_SIZE",
     .local_rank_var = "OMPI_COMM_WORLD_LOCAL_RANK",
     .local_size_var = "OMPI_COMM_WORLD_LOCAL_SIZE",
     .size_alone_detects = true,
     .store = StoreRule::kOrMaster,
     .missing_store_code = Code::kNotAvailable,
     .missing_store_hint = kMasterHint},
    // MPI_LOCALRANKID / MPI_LOCALNRANKS are what MPICH's Hydra exports beside PMI_*.
    {.source = "pmi",
     .display = "PMI",
     .rank_var = "PMI_RANK",
     .size_var = "PMI_SIZE",
     .local_rank_var = "MPI_LOCALRANKID",
     .local_size_var = "MPI_LOCALNRANKS",
     .size_alone_detects = true,
     .store = StoreRule::kOrMaster,
     .missing_store_code = Code::kNotAvailable,
     .missing_store_hint = kMasterHint},
    {.source = "slurm",
     .display = "Slurm",
     .rank_var = "SLURM_PROCID",
     .size_var = "SLURM_NTASKS",
     .local_rank_var = "SLURM_LOCALID",
     .derive_local_size = ReadSlurmLocalWorldSize,
     .size_alone_detects = false,
     .store = StoreRule::kOrSlurm,
     .missing_store_code = Code::kInvalidArgument,
     .missing_store_hint = "set WEFT_STORE=host:port, or start the tasks with srun so that "
                           "SLURM_STEP_NODELIST is set"},
};

Result<std::optional<NamedInt>> ReadOptionalInt(const EnvReader& env, const char* name) {
  if (name == nullptr) return std::optional<NamedInt>();
  return ReadInt(env, name, INT64_MIN, INT64_MAX);  // BuildWorld checks the ranges
}

Result<WorldFields> ReadWorldFields(const RankConvention& c, const EnvReader& env) {
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> rank, ReadOptionalInt(env, c.rank_var));
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> size, ReadOptionalInt(env, c.size_var));
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> local_rank, ReadOptionalInt(env, c.local_rank_var));
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> local_size, ReadOptionalInt(env, c.local_size_var));
  if (c.derive_local_size != nullptr) {
    WEFT_ASSIGN_OR_RETURN(local_size, c.derive_local_size(env));
  }
  return WorldFields{std::move(*rank), std::move(*size), std::move(local_rank),
                     std::move(local_size)};
}

// A launcher sets its variables together; one without the other is a hand-made environment
// with a mistake in it, and guessing the missing half would start a wrong world.
Status CheckComplete(const RankConvention& c, const EnvReader& env) {
  const std::optional<EnvValue> rank = env.Get(c.rank_var);
  const std::optional<EnvValue> size = env.Get(c.size_var);
  if (rank && size) return Status::Ok();
  const EnvValue& set = rank ? *rank : *size;
  const char* missing = rank ? c.size_var : c.rank_var;
  return InvalidArgument(set.name + "=" + set.text + " is set but " + missing +
                         " is not: a partial " + c.display + " launch environment");
}

Result<LaunchEnv> AttachStore(const RankConvention& c, const EnvReader& env, LaunchEnv out) {
  if (out.world_size == 1) return out;
  WEFT_ASSIGN_OR_RETURN(MaybeStore store, ConventionStore(c.store, env));
  if (!store) {
    return Status(c.missing_store_code, std::string(c.display) + " launch detected (" + c.rank_var +
                                            "=" + std::to_string(out.rank) +
                                            ") but no store address: " + c.missing_store_hint);
  }
  out.store_host = std::move(store->host);
  out.store_port = store->port;
  return out;
}

}  // namespace

std::span<const RankConvention> RankConventions() { return kConventions; }

Result<MaybeStore> ConventionStore(StoreRule rule, const EnvReader& env) {
  WEFT_ASSIGN_OR_RETURN(MaybeStore store, StoreFromWeftStore(env));
  if (store || rule == StoreRule::kWeftStoreOnly) return store;
  return rule == StoreRule::kOrMaster ? StoreFromMaster(env) : StoreFromSlurm(env);
}

Result<MaybeEnv> DetectRankConvention(const RankConvention& c, const EnvReader& env) {
  const bool detected = env.Has(c.rank_var) || (c.size_alone_detects && env.Has(c.size_var));
  if (!detected) return MaybeEnv();
  WEFT_RETURN_IF_ERROR(CheckComplete(c, env));
  WEFT_ASSIGN_OR_RETURN(WorldFields fields, ReadWorldFields(c, env));
  WEFT_ASSIGN_OR_RETURN(LaunchEnv out, BuildWorld(fields, c.source));
  WEFT_ASSIGN_OR_RETURN(out, AttachStore(c, env, std::move(out)));
  return MaybeEnv(std::move(out));
}

}  // namespace weft::backends::detail
