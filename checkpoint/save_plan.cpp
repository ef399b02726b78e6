#include "checkpoint/save_plan.hpp"

#include <array>

#include "placement/limits.hpp"

namespace weft::checkpoint {

bool IsWriter(const placement::Layout& layout, const int64_t* coord, int64_t tensor) {
  const placement::Mesh& mesh = layout.mesh();
  int64_t block = 0, replica = 0, replicas = 1;
  for (int32_t m = 0; m < mesh.ndim(); ++m) {
    const int64_t extent = mesh.shape()[m];
    if (placement::IsShard(layout.placements()[m])) {
      block = block * extent + coord[m];
    } else {
      replica = replica * extent + coord[m];
      replicas *= extent;
    }
  }
  return replica == (block + tensor) % replicas;
}

Box BlockOf(const placement::Layout& layout, int32_t rank) {
  Box b;
  b.ndim = layout.ndim();
  layout.LocalBlock(rank, b.shape.data(), b.offset.data());
  return b;
}

std::vector<PlannedBox> PlanBoxes(const placement::Layout& layout, int64_t tensor) {
  const placement::Mesh& mesh = layout.mesh();
  std::vector<PlannedBox> out;
  std::array<int64_t, placement::kMaxMeshDims> coord{};
  for (int64_t i = 0; i < mesh.size(); ++i) {
    // Row-major coordinate of mesh position i.
    int64_t rest = i;
    for (int32_t m = mesh.ndim() - 1; m >= 0; --m) {
      coord[m] = rest % mesh.shape()[m];
      rest /= mesh.shape()[m];
    }
    if (!IsWriter(layout, coord.data(), tensor)) continue;
    PlannedBox pb;
    pb.rank = mesh.RankAtIndex(i);
    pb.box.ndim = layout.ndim();
    layout.BlockAt(coord.data(), pb.box.shape.data(), pb.box.offset.data());
    if (!pb.box.Empty()) out.push_back(pb);
  }
  return out;
}

std::vector<std::vector<int64_t>> Pieces(const placement::Layout& layout) {
  std::vector<std::vector<int64_t>> out;
  for (int32_t d = 0; d < layout.ndim(); ++d) out.push_back(layout.ResolvedSizes(d));
  return out;
}

}  // namespace weft::checkpoint
