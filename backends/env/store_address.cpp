#include "backends/env/store_address.hpp"

#include <cstdint>

#include "backends/env/host_port.hpp"
#include "backends/env/slurm_nodelist.hpp"
#include "backends/env/slurm_port.hpp"

namespace weft::backends::detail {
namespace {

Status Prefixed(const EnvValue& v, const Status& s) {
  return {s.code(), v.name + ": " + s.message()};
}

// Slurm ids are non-negative; a step id larger than int32 is one of Slurm's special steps
// (batch, extern), which still hash deterministically.
Result<int64_t> ReadSlurmId(const EnvReader& env, const char* name) {
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> id, ReadInt(env, name, 0, INT64_MAX));
  return id ? id->value : int64_t{-1};
}

Result<uint16_t> SlurmPort(const EnvReader& env) {
  if (std::optional<EnvValue> port = env.Get("WEFT_STORE_PORT")) return ParsePort(*port);
  WEFT_ASSIGN_OR_RETURN(int64_t job, ReadSlurmId(env, "SLURM_JOB_ID"));
  if (job < 0) {
    return InvalidArgument(
        "Slurm launch detected but SLURM_JOB_ID is unset, so no store port can be derived: set "
        "WEFT_STORE_PORT");
  }
  // SLURM_STEPID is the older name; a missing step id (outside srun) counts as step 0.
  WEFT_ASSIGN_OR_RETURN(int64_t step, ReadSlurmId(env, "SLURM_STEP_ID"));
  if (step < 0) {
    WEFT_ASSIGN_OR_RETURN(step, ReadSlurmId(env, "SLURM_STEPID"));
  }
  return SlurmDefaultPort(job, step < 0 ? 0 : step);
}

}  // namespace

Result<MaybeStore> StoreFromWeftStore(const EnvReader& env) {
  const std::optional<EnvValue> v = env.Get("WEFT_STORE");
  if (!v) return MaybeStore();
  auto parsed = ParseHostPort(v->text);
  if (!parsed.ok()) return Prefixed(*v, parsed.status());
  return MaybeStore(StoreAddress{parsed->first, parsed->second});
}

Result<MaybeStore> StoreFromMaster(const EnvReader& env) {
  const std::optional<EnvValue> addr = env.Get("MASTER_ADDR");
  const std::optional<EnvValue> port = env.Get("MASTER_PORT");
  if (!addr && !port) return MaybeStore();
  if (!port) return InvalidArgument("MASTER_ADDR=" + addr->text + " is set but MASTER_PORT is not");
  if (!addr) return InvalidArgument("MASTER_PORT=" + port->text + " is set but MASTER_ADDR is not");
  std::string host = addr->text;
  // Some launchers bracket an IPv6 MASTER_ADDR; Asio wants it bare.
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!IsPlausibleHost(host)) {
    return InvalidArgument("MASTER_ADDR='" + addr->text + "' is not a host name or address");
  }
  WEFT_ASSIGN_OR_RETURN(uint16_t p, ParsePort(*port));
  return MaybeStore(StoreAddress{std::move(host), p});
}

Result<MaybeStore> StoreFromSlurm(const EnvReader& env) {
  std::optional<EnvValue> list = env.Get("SLURM_STEP_NODELIST");
  if (!list) list = env.Get("SLURM_JOB_NODELIST");
  if (!list) return MaybeStore();
  auto hosts = ExpandSlurmNodeList(list->text);
  if (!hosts.ok()) return Prefixed(*list, hosts.status());
  WEFT_ASSIGN_OR_RETURN(uint16_t port, SlurmPort(env));
  return MaybeStore(StoreAddress{hosts->front(), port});
}

}  // namespace weft::backends::detail
