// Launch variables that lost: when several launchers' variables are set and disagree (a job
// script's WEFT_RANK against the RANK of torchrun around it), the first match wins (SPEC §8),
// and this names what won and what was ignored, for an info line. Variables that agree, or
// that are unset, are not mentioned.
#include "backends/env/conventions.hpp"
#include "common/param_parse.hpp"

namespace weft::backends::detail {
namespace {

// `name=text` when the variable is set and does not say `value`.
std::string Disagreeing(const EnvReader& env, const char* name, int64_t value) {
  if (name == nullptr) return {};
  const std::optional<EnvValue> v = env.Get(name);
  if (!v) return {};
  int64_t parsed = 0;
  if (param::ParseInteger(v->text, &parsed) == param::IntError::kNone && parsed == value) return {};
  return v->name + "=" + v->text;
}

}  // namespace

std::string DescribeIgnored(const LaunchEnv& won, const RankConvention* winner,
                            const EnvReader& env) {
  std::string ignored;
  for (const RankConvention& c : RankConventions()) {
    if (&c == winner) continue;
    std::string vars;
    for (const std::string& d :
         {Disagreeing(env, c.rank_var, won.rank), Disagreeing(env, c.size_var, won.world_size)}) {
      if (!d.empty()) vars += (vars.empty() ? "" : ", ") + d;
    }
    if (!vars.empty()) ignored += (ignored.empty() ? "" : "; ") + vars + " (" + c.display + ")";
  }
  if (ignored.empty()) return ignored;
  const std::string from = winner ? std::string(winner->rank_var) + ", " + winner->size_var + " (" +
                                        winner->display + ")"
                                  : std::string("options.rank, options.world_size");
  return "rank " + std::to_string(won.rank) + " of " + std::to_string(won.world_size) + " from " +
         from + ", the first match; ignored " + ignored;
}

}  // namespace weft::backends::detail
