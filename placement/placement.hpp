// Placements are plain values, one per mesh dim (SPEC §2.2).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "common/dtype.hpp"

namespace weft::placement {

struct Replicate {
  friend bool operator==(const Replicate&, const Replicate&) = default;
};
struct Shard {
  int32_t dim = 0;  // tensor dim
  friend bool operator==(const Shard&, const Shard&) = default;
};
struct Partial {
  ReduceOp op = ReduceOp::kSum;
  friend bool operator==(const Partial&, const Partial&) = default;
};

using Placement = std::variant<Replicate, Shard, Partial>;

inline bool IsShard(const Placement& p) { return std::holds_alternative<Shard>(p); }
inline bool IsPartial(const Placement& p) { return std::holds_alternative<Partial>(p); }

// "R", "S(1)", "P(sum)": the short forms DTensor users know.
std::string PlacementName(const Placement& p);

}  // namespace weft::placement
