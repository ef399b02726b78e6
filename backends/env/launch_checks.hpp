// Cross-checks of the numbers a launcher gives (rank below world size and so on), shared by
// every convention so that all of them reject the same mistakes with the same words.
// Internal to backends/env.
#pragma once

#include <optional>

#include "backends/env/env_reader.hpp"
#include "backends/env/launch_env.hpp"

namespace weft::backends::detail {

// The numbers of one launch, each named after the variable or option it came from.
struct WorldFields {
  NamedInt rank;
  NamedInt world_size;
  std::optional<NamedInt> local_rank;
  std::optional<NamedInt> local_world_size;
};

// Checks 0 <= rank < world_size, world_size >= 1, 0 <= local_rank < local_world_size <=
// world_size, and fills the numeric fields of a LaunchEnv. An unknown local rank is 0; an
// unknown local world size is 1 when the local rank is unknown too, and otherwise the world
// size, the only bound that is certain to hold.
Result<LaunchEnv> BuildWorld(const WorldFields& f, std::string source);

}  // namespace weft::backends::detail
