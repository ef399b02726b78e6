// Every rank's window (SPEC §4.1): its owned block widened, per windowed tensor dim, by the
// uniform rule or taken from the explicit table, and checked against the boundary rules
// (SPEC §4.2). Computed on demand in O(ndim) for any mesh position, so every rank can see every
// other rank's window without storing them.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "placement/halo/halo_spec.hpp"
#include "placement/layout.hpp"
#include "placement/planner/box.hpp"

namespace weft::placement::halo {

using planner::Box;

// The nonempty pieces of one tensor dim, in piece order (= ascending rows).
struct PieceTable {
  std::vector<int64_t> begin, end, index;
  // The piece holding `row` (0 <= row < N).
  int64_t Find(int64_t row) const;
};

class Geometry {
 public:
  // Checks spec against layout and every mesh position's window: the same verdict, and the
  // same first error, on every rank.
  static Result<Geometry> Create(LayoutPtr layout, HaloSpec spec);

  const Layout& layout() const { return *layout_; }
  const LayoutPtr& layout_ptr() const { return layout_; }
  const HaloSpec& spec() const { return spec_; }
  int32_t ndim() const { return layout_->ndim(); }
  // Index into spec().dims of tensor dim d, or -1 when d has no halo.
  int32_t windowed(int32_t d) const { return windowed_[static_cast<size_t>(d)]; }
  const PieceTable& pieces(int32_t d) const { return pieces_[static_cast<size_t>(d)]; }

  Box Owned(const int64_t* coord) const { return planner::BlockBox(*layout_, coord); }
  Box Window(const int64_t* coord) const;
  // Sets the coordinates of the mesh dims that shard tensor dim d to those of piece p.
  void SetPiece(int32_t d, int64_t p, int64_t* coord) const;

 private:
  Geometry() = default;
  Status CheckWindow(int32_t d, int64_t position, int64_t begin, int64_t end) const;

  LayoutPtr layout_;
  HaloSpec spec_;
  std::vector<int32_t> windowed_;
  std::vector<PieceTable> pieces_;
};

}  // namespace weft::placement::halo
