#include "ops/engine/rule.hpp"

namespace weft::ops {

std::string PlacementCodeName(const PlacementCode& c) {
  switch (c.kind) {
    case PlacementCode::Kind::kReplicate:
      return "R";
    case PlacementCode::Kind::kShard:
      return "S(" + std::to_string(c.dim) + ")";
    case PlacementCode::Kind::kPartial:
      return std::string("P(") + ReduceOpName(c.op) + ")";
  }
  return "?";
}

std::string ShapeText(std::span<const int64_t> s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

DimStrategy Replicated(size_t tensors) { return DimStrategy{std::vector<PlacementCode>(tensors)}; }

}  // namespace weft::ops
