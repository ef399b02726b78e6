#include "placement/layout.hpp"

#include <string>

namespace weft::placement {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }
std::string At(const char* what, size_t i) {
  return std::string(what) + "[" + Str(int64_t(i)) + "]";
}

Status ValidateShape(const std::vector<int64_t>& shape, DType dtype, int64_t* elements) {
  if (static_cast<int32_t>(shape.size()) > kMaxTensorDims)
    return InvalidArgument("ndim is " + Str(int64_t(shape.size())) + " but tensors have 0.." +
                           Str(kMaxTensorDims) + " dims");
  if (!IsMovable(dtype))
    return InvalidArgument("dtype " + DTypeName(dtype) +
                           " is not supported: bits must be a multiple of 8, lanes 1");
  int64_t n = 1;
  const int64_t limit = INT64_MAX / ItemSize(dtype);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return InvalidArgument(At("global_shape", i) + " is " + Str(shape[i]) +
                             " but extents must be >= 0");
    if (shape[i] != 0 && n > limit / shape[i])
      return InvalidArgument("global_shape has more bytes than fit in 64 bits");
    n *= shape[i];
  }
  *elements = n;
  return Status::Ok();
}

Status ValidatePlacements(const std::vector<Placement>& ps, int32_t ndim, DType dtype) {
  int32_t first_partial = -1;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (const auto* s = std::get_if<Shard>(&ps[i])) {
      if (s->dim < 0 || s->dim >= ndim)
        return InvalidArgument(At("placements", i) + " shards tensor dim " + Str(s->dim) +
                               " but the tensor has " + Str(ndim) + " dims");
    } else if (const auto* p = std::get_if<Partial>(&ps[i])) {
      std::string why;
      if (!PartialValidFor(p->op, dtype, &why))
        return InvalidArgument(At("placements", i) + " is " + PlacementName(ps[i]) + " on dtype " +
                               DTypeName(dtype) + ": " + why);
      if (first_partial < 0) {
        first_partial = static_cast<int32_t>(i);
        continue;
      }
      const ReduceOp a = std::get<Partial>(ps[first_partial]).op, b = p->op;
      const bool sum_avg = (a == ReduceOp::kSum || a == ReduceOp::kAvg) &&
                           (b == ReduceOp::kSum || b == ReduceOp::kAvg);
      if (a != b && !sum_avg)
        return InvalidArgument(At("placements", i) + " is " + PlacementName(ps[i]) + " but " +
                               At("placements", size_t(first_partial)) + " is " +
                               PlacementName(ps[first_partial]) +
                               ": Partial mesh dims must share one op (or mix sum with avg)");
    }
  }
  return Status::Ok();
}

// Nested chunk rule: each sharding mesh dim re-splits the piece left by the ones before it.
Piece NestedChunk(int64_t n, const DimSplit& split, const Mesh& mesh, const int64_t* coord) {
  Piece piece{0, n};
  for (int32_t m : split.mesh_dims) {
    const Piece sub = ChunkPiece(piece.size, mesh.shape()[m], coord[m]);
    piece = {piece.offset + sub.offset, sub.size};
  }
  if (piece.size == 0) piece.offset = n;
  return piece;
}

// Writes into `coord` the coordinates (on the split's mesh dims) of piece index `p`.
void PieceCoord(const DimSplit& split, const Mesh& mesh, int64_t p, int64_t* coord) {
  for (int32_t k = static_cast<int32_t>(split.mesh_dims.size()) - 1; k >= 0; --k) {
    const int32_t m = split.mesh_dims[k];
    coord[m] = p % mesh.shape()[m];
    p /= mesh.shape()[m];
  }
}

}  // namespace

Result<LayoutPtr> Layout::Create(Spec spec) {
  if (!spec.mesh) return InvalidArgument("mesh is NULL");
  auto layout = std::shared_ptr<Layout>(new Layout());
  WEFT_RETURN_IF_ERROR(ValidateShape(spec.shape, spec.dtype, &layout->num_elements_));
  if (static_cast<int32_t>(spec.placements.size()) != spec.mesh->ndim())
    return InvalidArgument("placements has " + Str(int64_t(spec.placements.size())) +
                           " entries but the mesh has " + Str(spec.mesh->ndim()) + " dims");
  WEFT_RETURN_IF_ERROR(
      ValidatePlacements(spec.placements, static_cast<int32_t>(spec.shape.size()), spec.dtype));
  layout->mesh_ = std::move(spec.mesh);
  layout->shape_ = std::move(spec.shape);
  layout->dtype_ = spec.dtype;
  layout->placements_ = std::move(spec.placements);
  WEFT_RETURN_IF_ERROR(layout->ResolveSplits(spec.splits));
  return LayoutPtr(std::move(layout));
}

Status Layout::ResolveSplits(std::vector<std::optional<std::vector<int64_t>>>& given) {
  if (!given.empty() && given.size() != shape_.size())
    return InvalidArgument("split_sizes has " + Str(int64_t(given.size())) +
                           " entries but the tensor has " + Str(ndim()) + " dims");
  splits_.clear();
  splits_.resize(shape_.size());
  for (int32_t m = 0; m < mesh_->ndim(); ++m) {
    if (const auto* s = std::get_if<Shard>(&placements_[m])) {
      splits_[s->dim].mesh_dims.push_back(m);
      splits_[s->dim].pieces *= mesh_->shape()[m];
    }
  }
  for (size_t d = 0; d < given.size(); ++d) {
    if (!given[d]) continue;
    DimSplit& split = splits_[d];
    std::vector<int64_t>& sizes = *given[d];
    const std::string name = At("split_sizes", d);
    if (static_cast<int64_t>(sizes.size()) != split.pieces)
      return InvalidArgument(name + " has " + Str(int64_t(sizes.size())) +
                             " entries but tensor dim " + Str(int64_t(d)) + " is cut into " +
                             Str(split.pieces) + " pieces by the placements");
    int64_t total = 0;
    bool is_chunk = true;
    std::vector<int64_t> offsets(sizes.size());
    for (size_t j = 0; j < sizes.size(); ++j) {
      if (sizes[j] < 0 || sizes[j] > shape_[d] - total)
        return InvalidArgument(name + "[" + Str(int64_t(j)) + "] is " + Str(sizes[j]) +
                               (sizes[j] < 0 ? " but piece sizes must be >= 0"
                                             : " and the pieces overrun global_shape[" +
                                                   Str(int64_t(d)) + "] = " + Str(shape_[d])));
      offsets[j] = sizes[j] == 0 ? shape_[d] : total;
      total += sizes[j];
    }
    if (total != shape_[d])
      return InvalidArgument(name + " sums to " + Str(total) + " but global_shape[" +
                             Str(int64_t(d)) + "] is " + Str(shape_[d]));
    split.sizes = std::move(sizes);
    split.offsets = std::move(offsets);
    // Compare with the chunk rule piece by piece; equal splits keep the chunk form.
    Coord coord{};
    for (int64_t p = 0; p < split.pieces && is_chunk; ++p) {
      PieceCoord(split, *mesh_, p, coord.data());
      is_chunk = NestedChunk(shape_[d], split, *mesh_, coord.data()).size == split.sizes[p];
    }
    if (is_chunk) {
      split.sizes.clear();
      split.offsets.clear();
    }
  }
  return Status::Ok();
}

Piece Layout::PieceAt(int32_t dim, const int64_t* coord) const {
  const DimSplit& split = splits_[dim];
  const int64_t n = shape_[dim];
  if (split.is_explicit()) {
    int64_t p = 0;
    for (int32_t m : split.mesh_dims) p = p * mesh_->shape()[m] + coord[m];
    return {split.offsets[p], split.sizes[p]};
  }
  return NestedChunk(n, split, *mesh_, coord);
}

void Layout::BlockAt(const int64_t* coord, int64_t* shape, int64_t* offset) const {
  for (int32_t d = 0; d < ndim(); ++d) {
    const Piece p = PieceAt(d, coord);
    shape[d] = p.size;
    offset[d] = p.offset;
  }
}

bool Layout::LocalBlock(int32_t rank, int64_t* shape, int64_t* offset) const {
  Coord coord;
  if (rank < 0 || !mesh_->Coordinate(rank, coord.data())) {
    for (int32_t d = 0; d < ndim(); ++d) {
      shape[d] = 0;
      offset[d] = shape_[d];
    }
    return false;
  }
  BlockAt(coord.data(), shape, offset);
  return true;
}

std::vector<int64_t> Layout::ResolvedSizes(int32_t dim) const {
  const DimSplit& split = splits_[dim];
  if (split.is_explicit()) return split.sizes;
  std::vector<int64_t> sizes(static_cast<size_t>(split.pieces));
  Coord coord{};
  for (int64_t p = 0; p < split.pieces; ++p) {
    PieceCoord(split, *mesh_, p, coord.data());
    sizes[p] = PieceAt(dim, coord.data()).size;
  }
  return sizes;
}

bool Layout::SameAs(const Layout& o) const {
  if (this == &o) return true;
  if (!(dtype_ == o.dtype_) || shape_ != o.shape_ || placements_ != o.placements_) return false;
  if (!mesh_->SameAs(*o.mesh_)) return false;
  for (int32_t d = 0; d < ndim(); ++d)
    if (splits_[d].sizes != o.splits_[d].sizes) return false;  // both canonical
  return true;
}

}  // namespace weft::placement
