// The order of SPEC §8, first match wins. A convention whose variables are present but wrong
// is an error, not a reason to try the next one: falling through would start a world whose
// ranks disagree about who they are.
#include <cstdlib>

#include "backends/env/conventions.hpp"
#include "backends/env/launch_env.hpp"

namespace weft::backends {

GetEnv ProcessGetEnv() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

Result<LaunchEnv> DetectLaunchEnv(const LaunchOptions& opts, const GetEnv& getenv) {
  const detail::EnvReader env(getenv);
  WEFT_ASSIGN_OR_RETURN(detail::MaybeEnv from_options, detail::DetectFromOptions(opts, env));
  if (from_options) {
    from_options->ignored = detail::DescribeIgnored(*from_options, nullptr, env);
    return std::move(*from_options);
  }
  for (const detail::RankConvention& convention : detail::RankConventions()) {
    WEFT_ASSIGN_OR_RETURN(detail::MaybeEnv found, detail::DetectRankConvention(convention, env));
    if (!found) continue;
    found->ignored = detail::DescribeIgnored(*found, &convention, env);
    return std::move(*found);
  }
  LaunchEnv single;
  single.source = "single";
  return single;
}

}  // namespace weft::backends
