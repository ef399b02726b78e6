// Human-readable descriptions of meshes and layouts, for logs, errors and weft_*_describe.
#include <sstream>

#include "placement/layout.hpp"

namespace weft::placement {
namespace {

constexpr int64_t kMaxListed = 64;  // longer lists show their head and a count

template <class Get>
void List(std::ostringstream& os, int64_t n, Get get) {
  os << '[';
  for (int64_t i = 0; i < n && i < kMaxListed; ++i) os << (i ? ", " : "") << get(i);
  if (n > kMaxListed) os << ", ... (" << n << " in all)";
  os << ']';
}

}  // namespace

std::string DescribeMesh(const Mesh& mesh) {
  std::ostringstream os;
  os << "mesh ";
  List(os, mesh.ndim(), [&](int64_t d) { return mesh.shape()[d]; });
  bool named = false;
  for (int32_t d = 0; d < mesh.ndim(); ++d) named |= !mesh.dim_name(d).empty();
  if (named) {
    os << " (";
    for (int32_t d = 0; d < mesh.ndim(); ++d)
      os << (d ? ", " : "") << (mesh.dim_name(d).empty() ? "_" : mesh.dim_name(d));
    os << ')';
  }
  os << " ranks ";
  bool contiguous = true;
  const int32_t first = mesh.RankAtIndex(0);
  for (int64_t i = 1; i < mesh.size() && contiguous; ++i)
    contiguous = mesh.RankAtIndex(i) == first + i;
  if (contiguous) {
    os << first << ".." << first + mesh.size() - 1;
  } else {
    List(os, mesh.size(), [&](int64_t i) { return mesh.RankAtIndex(i); });
  }
  if (mesh.context().abstract()) os << " (abstract)";
  return os.str();
}

std::string Layout::Describe() const {
  std::ostringstream os;
  os << DTypeName(dtype_);
  List(os, ndim(), [&](int64_t d) { return shape_[d]; });
  os << " on " << DescribeMesh(*mesh_) << ", placements ";
  List(os, mesh_->ndim(), [&](int64_t m) { return PlacementName(placements_[m]); });
  for (int32_t d = 0; d < ndim(); ++d) {
    const DimSplit& split = splits_[d];
    if (split.mesh_dims.empty()) continue;
    os << "\n  dim " << d << " (" << shape_[d] << ") over mesh dims ";
    List(os, static_cast<int64_t>(split.mesh_dims.size()),
         [&](int64_t k) { return split.mesh_dims[k]; });
    os << (split.is_explicit() ? ", explicit pieces " : ", chunk pieces ");
    if (split.is_explicit()) {
      List(os, split.pieces, [&](int64_t p) { return split.sizes[p]; });
    } else {
      const std::vector<int64_t> sizes =
          split.pieces <= kMaxListed ? ResolvedSizes(d) : std::vector<int64_t>();
      if (sizes.empty() && split.pieces > 0) {
        os << "(" << split.pieces << " pieces, chunk rule)";
      } else {
        List(os, split.pieces, [&](int64_t p) { return sizes[p]; });
      }
    }
  }
  return os.str();
}

}  // namespace weft::placement
