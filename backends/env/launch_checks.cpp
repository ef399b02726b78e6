#include "backends/env/launch_checks.hpp"

namespace weft::backends::detail {
namespace {

std::string Show(const NamedInt& v) { return v.name + "=" + std::to_string(v.value); }

Status CheckBelow(const NamedInt& v, const NamedInt& bound) {
  if (v.value < bound.value) return Status::Ok();
  return InvalidArgument(Show(v) + " must be less than " + Show(bound));
}

Status CheckRanges(const WorldFields& f) {
  WEFT_RETURN_IF_ERROR(CheckRange(f.world_size, 1, kMaxInt32));
  WEFT_RETURN_IF_ERROR(CheckRange(f.rank, 0, kMaxInt32));
  if (f.local_rank) WEFT_RETURN_IF_ERROR(CheckRange(*f.local_rank, 0, kMaxInt32));
  if (f.local_world_size) WEFT_RETURN_IF_ERROR(CheckRange(*f.local_world_size, 1, kMaxInt32));
  return Status::Ok();
}

Status CheckOrder(const WorldFields& f) {
  WEFT_RETURN_IF_ERROR(CheckBelow(f.rank, f.world_size));
  if (f.local_world_size && f.local_world_size->value > f.world_size.value) {
    return InvalidArgument(Show(*f.local_world_size) + " exceeds " + Show(f.world_size));
  }
  if (f.local_rank) {
    WEFT_RETURN_IF_ERROR(CheckBelow(*f.local_rank, f.local_world_size.value_or(f.world_size)));
  }
  return Status::Ok();
}

}  // namespace

Result<LaunchEnv> BuildWorld(const WorldFields& f, std::string source) {
  WEFT_RETURN_IF_ERROR(CheckRanges(f));
  WEFT_RETURN_IF_ERROR(CheckOrder(f));
  LaunchEnv env;
  env.rank = static_cast<int32_t>(f.rank.value);
  env.world_size = static_cast<int32_t>(f.world_size.value);
  env.local_rank = f.local_rank ? static_cast<int32_t>(f.local_rank->value) : 0;
  if (f.local_world_size) {
    env.local_world_size = static_cast<int32_t>(f.local_world_size->value);
  } else {
    env.local_world_size = f.local_rank ? env.world_size : 1;
  }
  env.source = std::move(source);
  return env;
}

}  // namespace weft::backends::detail
