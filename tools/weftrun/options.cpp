#include "tools/weftrun/options.hpp"

#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>

namespace weft::tools {
namespace {

// Longer than any sensible job and small enough that deadline arithmetic cannot overflow.
constexpr double kMaxSeconds = 1e7;

struct Split {
  std::string name;
  std::optional<std::string> value;  // given inline: "--timeout=5" or "-n4"
};

Split SplitOption(const std::string& arg) {
  if (arg.starts_with("--")) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) return {arg, std::nullopt};
    return {arg.substr(0, eq), arg.substr(eq + 1)};
  }
  if (arg.size() > 2) return {arg.substr(0, 2), arg.substr(2)};
  return {arg, std::nullopt};
}

Status BadValue(const std::string& name, const std::string& value, const char* expected) {
  return InvalidUsage(name + " expects " + expected + ", got '" + value + "'");
}

Status ParseRanks(const std::string& value, int& ranks) {
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, ranks);
  if (value.empty() || ec != std::errc() || ptr != end) {
    return BadValue("-n", value, "a whole number of ranks");
  }
  if (ranks < 1 || ranks > kMaxRanks) {
    return InvalidUsage("-n " + value + ": the number of ranks must be between 1 and " +
                        std::to_string(kMaxRanks));
  }
  return Status::Ok();
}

Status ParseSeconds(const std::string& name, const std::string& value, bool allow_zero,
                    double& seconds) {
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, seconds);
  const bool valid = !value.empty() && ec == std::errc() && ptr == end && std::isfinite(seconds) &&
                     seconds <= kMaxSeconds;
  if (!valid || seconds < 0 || (seconds == 0 && !allow_zero)) {
    return BadValue(name, value,
                    allow_zero ? "a number of seconds >= 0" : "a number of seconds > 0");
  }
  return Status::Ok();
}

Status ApplyValue(const std::string& name, const std::string& value, Options& opts) {
  if (name == "-n") return ParseRanks(value, opts.ranks);
  if (name == "--grace") return ParseSeconds(name, value, true, opts.grace_s);
  if (name == "--timeout") {
    double seconds = 0;
    WEFT_RETURN_IF_ERROR(ParseSeconds(name, value, false, seconds));
    opts.timeout_s = seconds;
    return Status::Ok();
  }
  // --backend, the only other option that TakesValue().
  if (value.empty()) return BadValue(name, value, "a backend name");
  opts.backend = value;
  return Status::Ok();
}

bool IsFlag(const std::string& name) {
  return name == "--no-prefix" || name == "-h" || name == "--help" || name == "--print-params";
}

bool TakesValue(const std::string& name) {
  return name == "-n" || name == "--backend" || name == "--timeout" || name == "--grace";
}

// Consumes one option (and its value if separate) starting at args[i]; advances i past it.
Status ParseOne(std::span<const std::string> args, size_t& i, Options& opts) {
  Split opt = SplitOption(args[i++]);
  if (IsFlag(opt.name)) {
    if (opt.value) return InvalidUsage("option " + opt.name + " takes no value");
    if (opt.name == "--no-prefix") opts.prefix = false;
    if (opt.name == "--print-params") opts.print_params = true;
    if (opt.name == "-h" || opt.name == "--help") opts.help = true;
    return Status::Ok();
  }
  if (!TakesValue(opt.name)) return InvalidUsage("unknown option '" + args[i - 1] + "'");
  if (!opt.value) {
    if (i == args.size()) return InvalidUsage("option " + opt.name + " needs a value");
    opt.value = args[i++];
  }
  return ApplyValue(opt.name, *opt.value, opts);
}

}  // namespace

Result<Options> ParseOptions(std::span<const std::string> args) {
  Options opts;
  size_t i = 0;
  while (i < args.size()) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!arg.starts_with('-') || arg == "-") break;  // the program
    WEFT_RETURN_IF_ERROR(ParseOne(args, i, opts));
  }
  if (opts.help) return opts;
  if (opts.print_params) {
    if (i < args.size()) return InvalidUsage("--print-params runs no program");
    return opts;
  }
  if (opts.ranks == 0) return InvalidUsage("missing -n N (the number of ranks)");
  opts.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (opts.command.empty()) return InvalidUsage("missing the program to run");
  return opts;
}

const char* UsageText() {
  return R"(usage: weftrun -n N [--backend B] [--timeout SECONDS] [--grace SECONDS] [--no-prefix]
               [--] prog [args...]
       weftrun --print-params [--backend B]

Starts N local processes of prog (found through PATH) and relays their output. Each rank gets
WEFT_RANK, WEFT_WORLD_SIZE, WEFT_LOCAL_RANK, WEFT_LOCAL_WORLD_SIZE, WEFT_STORE=127.0.0.1:PORT
(a free port on which rank 0 hosts the store) and WEFT_STORE_TOKEN, a secret made for this job
that every connection to the store must prove it knows. Standard input is /dev/null. If a rank
fails, the others get SIGTERM, then SIGKILL after the grace period. SIGINT and SIGTERM are
forwarded.

options:
  -n N               number of ranks, 1 to 4096 (required)
  --backend B        set WEFT_BACKEND=B for every rank (default: inherited)
  --timeout SECONDS  stop every rank after SECONDS and exit 124
  --grace SECONDS    wait between SIGTERM and SIGKILL when stopping ranks (default 3)
  --no-prefix        relay output lines without the "[rank] " prefix
  --print-params     list every WEFT_* variable: value, default, where the value came from,
                     whether it must match on every rank, meaning; with --backend (or
                     WEFT_BACKEND) the plugin's too. Exits 1 if a value is malformed
  -h, --help         print this help

exit status (decided by whatever first ends the job):
  0        every rank exited 0
  1        a rank exited non-zero, or weftrun itself failed
  128+S    a rank was killed by signal S, or weftrun received signal S (SIGINT, SIGTERM)
  124      --timeout expired
  127      prog could not be started
  2        usage error
)";
}

}  // namespace weft::tools
