#include "tools/weftrun/rank_env.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace weft::tools {
namespace {

constexpr std::array<std::string_view, 6> kAlwaysSet = {"WEFT_RANK",       "WEFT_WORLD_SIZE",
                                                        "WEFT_LOCAL_RANK", "WEFT_LOCAL_WORLD_SIZE",
                                                        "WEFT_STORE",      "WEFT_STORE_TOKEN"};

std::string_view NameOf(std::string_view entry) { return entry.substr(0, entry.find('=')); }

bool IsReplaced(std::string_view entry, const JobEnv& job) {
  const std::string_view name = NameOf(entry);
  if (job.backend && name == "WEFT_BACKEND") return true;
  return std::find(kAlwaysSet.begin(), kAlwaysSet.end(), name) != kAlwaysSet.end();
}

}  // namespace

std::vector<std::string> RankEnvironment(std::span<const std::string> base, const JobEnv& job,
                                         int rank) {
  std::vector<std::string> env;
  env.reserve(base.size() + kAlwaysSet.size() + 1);
  for (const std::string& entry : base) {
    if (!IsReplaced(entry, job)) env.push_back(entry);
  }
  env.push_back("WEFT_RANK=" + std::to_string(rank));
  env.push_back("WEFT_WORLD_SIZE=" + std::to_string(job.world_size));
  env.push_back("WEFT_LOCAL_RANK=" + std::to_string(rank));
  env.push_back("WEFT_LOCAL_WORLD_SIZE=" + std::to_string(job.world_size));
  env.push_back("WEFT_STORE=" + job.store);
  env.push_back("WEFT_STORE_TOKEN=" + job.token);
  if (job.backend) env.push_back("WEFT_BACKEND=" + *job.backend);
  return env;
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
  }
  return env;
}

}  // namespace weft::tools
