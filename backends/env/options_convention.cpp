// Explicit options: the caller already knows its rank (from its own launcher or MPI), so they
// win over every variable.
#include "backends/env/conventions.hpp"
#include "backends/env/host_port.hpp"
#include "backends/env/launch_checks.hpp"

namespace weft::backends::detail {
namespace {

constexpr const char* kHint =
    "set store_host and store_port, WEFT_STORE=host:port, or MASTER_ADDR and MASTER_PORT";

// -1 is the documented "unset"; any other negative value is a caller bug worth reporting.
Result<std::optional<NamedInt>> Option(const char* name, int32_t value) {
  if (value == -1) return std::optional<NamedInt>();
  if (value < 0) {
    return InvalidArgument(std::string(name) + "=" + std::to_string(value) +
                           " is negative (-1 means unset)");
  }
  return std::optional<NamedInt>(NamedInt{name, value});
}

Status CheckPair(const std::optional<NamedInt>& a, const char* b_name, bool b_set) {
  if (!a || b_set) return Status::Ok();
  return InvalidArgument(a->name + "=" + std::to_string(a->value) + " is set but " + b_name +
                         " is not: give both or neither");
}

// Checked even when the world is one process: a malformed argument is a bug either way.
Result<MaybeStore> OptionsStore(const LaunchOptions& opts) {
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> port,
                        Option("options.store_port", opts.store_port));
  const bool has_host = !opts.store_host.empty();
  WEFT_RETURN_IF_ERROR(CheckPair(port, "options.store_host", has_host));
  if (has_host && !port) {
    return InvalidArgument("options.store_host='" + opts.store_host +
                           "' is set but options.store_port is not: give both or neither");
  }
  if (!has_host) return MaybeStore();
  if (port->value < 1 || port->value > 65535) {
    return InvalidArgument("options.store_port=" + std::to_string(port->value) +
                           " is out of range for a TCP port (1-65535)");
  }
  if (!IsPlausibleHost(opts.store_host)) {
    return InvalidArgument("options.store_host='" + opts.store_host +
                           "' is not a host name or address");
  }
  return MaybeStore(StoreAddress{opts.store_host, static_cast<uint16_t>(port->value)});
}

Result<WorldFields> OptionFields(const LaunchOptions& opts) {
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> rank, Option("options.rank", opts.rank));
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> size,
                        Option("options.world_size", opts.world_size));
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> local_rank,
                        Option("options.local_rank", opts.local_rank));
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> local_size,
                        Option("options.local_world_size", opts.local_world_size));
  WEFT_RETURN_IF_ERROR(CheckPair(rank, "options.world_size", size.has_value()));
  WEFT_RETURN_IF_ERROR(CheckPair(size, "options.rank", rank.has_value()));
  return WorldFields{std::move(*rank), std::move(*size), std::move(local_rank),
                     std::move(local_size)};
}

}  // namespace

Result<MaybeEnv> DetectFromOptions(const LaunchOptions& opts, const EnvReader& env) {
  if (opts.rank == -1 && opts.world_size == -1) return MaybeEnv();
  WEFT_ASSIGN_OR_RETURN(WorldFields fields, OptionFields(opts));
  WEFT_ASSIGN_OR_RETURN(LaunchEnv out, BuildWorld(fields, "options"));
  WEFT_ASSIGN_OR_RETURN(MaybeStore store, OptionsStore(opts));
  if (out.world_size == 1) return MaybeEnv(std::move(out));
  if (!store) {
    WEFT_ASSIGN_OR_RETURN(store, ConventionStore(StoreRule::kOrMaster, env));
  }
  if (!store) {
    return InvalidArgument("explicit options (options.rank=" + std::to_string(out.rank) +
                           ", options.world_size=" + std::to_string(out.world_size) +
                           ") give no store address: " + kHint);
  }
  out.store_host = std::move(store->host);
  out.store_port = store->port;
  return MaybeEnv(std::move(out));
}

}  // namespace weft::backends::detail
