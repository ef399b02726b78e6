// A device mesh: an N-D array of world ranks (SPEC §2.1). Immutable once built.
//
// Ranks are held either as an affine map of the coordinate (offset + Σ coord·stride), which is
// what default meshes and their slices are, so a 100 000-rank mesh costs O(ndim) memory; or as
// an explicit list with a reverse index when the caller gave one.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "placement/limits.hpp"

namespace weft::placement {

using Coord = std::array<int64_t, kMaxMeshDims>;

// The identity of the context that owns a mesh, as placement/ sees it: an opaque value that
// meshes compare and nothing here interprets. The C API makes it from a context's handle and
// resolves it back through its handle table (api/src/context_link.hpp), so a mesh that
// outlives its context names a destroyed handle rather than freed memory. The default value is
// no owner: an abstract mesh.
class ContextId {
 public:
  constexpr ContextId() = default;
  constexpr explicit ContextId(uint64_t value) : value_(value) {}
  constexpr uint64_t value() const { return value_; }
  constexpr bool abstract() const { return value_ == 0; }
  friend constexpr bool operator==(ContextId, ContextId) = default;

 private:
  uint64_t value_ = 0;
};

class Mesh {
 public:
  struct Spec {
    ContextId context;        // the owning context; default: none (abstract)
    int64_t world_size = -1;  // ranks must be below it; -1 = no bound (abstract)
    std::vector<int64_t> shape;
    std::optional<std::vector<int32_t>> ranks;  // nullopt = 0..n-1 row-major
    std::vector<std::string> dim_names;         // empty = unnamed; else one per dim
  };
  static Result<std::shared_ptr<const Mesh>> Create(Spec spec);

  ContextId context() const { return context_; }
  int32_t ndim() const { return static_cast<int32_t>(shape_.size()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t size() const { return size_; }
  const std::string& dim_name(int32_t dim) const { return names_[dim]; }
  // Index of the dim called `name`, or -1.
  int32_t DimIndex(std::string_view name) const;

  // Rank at a row-major position / at a coordinate (both assumed in range).
  int32_t RankAtIndex(int64_t index) const;
  int32_t RankAt(const int64_t* coord) const;
  // Writes the rank's coordinate and returns true, or returns false if it is not in the mesh.
  bool Coordinate(int32_t rank, int64_t* coord) const;
  // The ranks of the group of mesh dim `dim` through `coord`, ordered by coordinate `dim`.
  std::vector<int32_t> Group(int32_t dim, const int64_t* coord) const;

  // Sub-mesh over `keep` (ascending, distinct) dims holding `rank`'s coordinates elsewhere.
  Result<std::shared_ptr<const Mesh>> Slice(std::span<const int32_t> keep, int32_t rank) const;
  // Merges dims [first, first + count) into one dim named `name`, row-major.
  Result<std::shared_ptr<const Mesh>> Flatten(int32_t first, int32_t count, std::string name) const;

  // Same context, shape and ranks; dim names do not matter (SPEC §2.3).
  bool SameAs(const Mesh& other) const;
  bool is_affine() const { return explicit_.empty(); }

 private:
  Mesh() = default;
  void BuildAffineOrder();
  void BuildExplicitIndex();

  ContextId context_;
  int64_t world_size_ = -1;
  std::vector<int64_t> shape_;
  int64_t size_ = 1;
  std::vector<std::string> names_;
  // Affine form (used when explicit_ is empty). Size-1 dims have stride 0.
  int64_t offset_ = 0;
  std::vector<int64_t> strides_;
  std::vector<int32_t> order_;  // dims with extent > 1, by stride descending
  // Explicit form.
  std::vector<int32_t> explicit_;
  std::unordered_map<int32_t, int64_t> index_of_;
};

using MeshPtr = std::shared_ptr<const Mesh>;

}  // namespace weft::placement
