// A layout: mesh + global shape + dtype + one placement per mesh dim + optional explicit
// splits (SPEC §2.3). Immutable; every rank's block is computable locally in O(ndim).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.hpp"
#include "common/result.hpp"
#include "placement/chunk_split.hpp"
#include "placement/mesh.hpp"
#include "placement/placement.hpp"

namespace weft::placement {

// How one tensor dim is cut. Nested sharding: the mesh dims in `mesh_dims` apply left to
// right, and piece p is the row-major combination of their coordinates.
struct DimSplit {
  std::vector<int32_t> mesh_dims;  // ascending
  int64_t pieces = 1;              // product of their extents
  // Explicit sizes and their start offsets; empty when the split is the chunk rule (also when
  // the caller passed sizes equal to it: equal layouts have one representation).
  std::vector<int64_t> sizes;
  std::vector<int64_t> offsets;
  bool is_explicit() const { return !sizes.empty(); }
};

class Layout {
 public:
  struct Spec {
    MeshPtr mesh;
    std::vector<int64_t> shape;
    DType dtype;
    std::vector<Placement> placements;
    // Per tensor dim: nullopt = chunk; else the sizes of every piece. Empty vector = all chunk.
    std::vector<std::optional<std::vector<int64_t>>> splits;
  };
  static Result<std::shared_ptr<const Layout>> Create(Spec spec);

  const Mesh& mesh() const { return *mesh_; }
  const MeshPtr& mesh_ptr() const { return mesh_; }
  int32_t ndim() const { return static_cast<int32_t>(shape_.size()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const std::vector<Placement>& placements() const { return placements_; }
  const DimSplit& split(int32_t dim) const { return splits_[dim]; }
  int64_t num_elements() const { return num_elements_; }

  // Piece along tensor dim `dim` for the mesh coordinate `coord`; an empty piece has offset
  // equal to the global extent (SPEC §2.2).
  Piece PieceAt(int32_t dim, const int64_t* coord) const;
  // The block of mesh coordinate `coord`.
  void BlockAt(const int64_t* coord, int64_t* shape, int64_t* offset) const;
  // The block of world rank `rank`; false (zeros, offsets = global shape) if outside the mesh.
  bool LocalBlock(int32_t rank, int64_t* shape, int64_t* offset) const;
  // Every piece size of tensor dim `dim`, in piece order.
  std::vector<int64_t> ResolvedSizes(int32_t dim) const;

  // Equal meshes, shapes, dtypes, placements and resolved piece sizes (SPEC §2.3).
  bool SameAs(const Layout& other) const;
  std::string Describe() const;

 private:
  Layout() = default;
  Status ResolveSplits(std::vector<std::optional<std::vector<int64_t>>>& given);

  MeshPtr mesh_;
  std::vector<int64_t> shape_;
  DType dtype_;
  std::vector<Placement> placements_;
  std::vector<DimSplit> splits_;
  int64_t num_elements_ = 0;
};

using LayoutPtr = std::shared_ptr<const Layout>;

// "mesh [2, 4] (dp, tp) ranks 0..7"
std::string DescribeMesh(const Mesh& mesh);

}  // namespace weft::placement
