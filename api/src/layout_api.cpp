// extern "C" layer for layouts: argument checks and conversion to placement::Layout.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "weft/layout.h"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;
using weft::api::LayoutObject;
using weft::placement::Layout;
using weft::placement::Placement;

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

weft::Result<Placement> ToPlacement(const weft_placement_t& p, size_t i) {
  const std::string name = "placements[" + Str(int64_t(i)) + "]";
  if (p.reserved != 0)
    return InvalidArgument(name + ".reserved is " + Str(p.reserved) + " but must be 0");
  switch (p.kind) {
    case WEFT_REPLICATE:
      return Placement(weft::placement::Replicate{});
    case WEFT_SHARD:
      return Placement(weft::placement::Shard{p.dim});
    case WEFT_PARTIAL:
      if (p.reduce_op < 0 || p.reduce_op >= weft::kNumReduceOps)
        return InvalidArgument(name + ".reduce_op is " + Str(p.reduce_op) +
                               " but must be WEFT_REDUCE_SUM (0) .. WEFT_REDUCE_PROD (4)");
      return Placement(weft::placement::Partial{static_cast<weft::ReduceOp>(p.reduce_op)});
    default:
      return InvalidArgument(name + ".kind is " + Str(p.kind) +
                             " but must be WEFT_REPLICATE (0), WEFT_SHARD (1) or WEFT_PARTIAL (2)");
  }
}

weft_placement_t FromPlacement(const Placement& p) {
  if (const auto* s = std::get_if<weft::placement::Shard>(&p)) return {WEFT_SHARD, s->dim, 0, 0};
  if (const auto* q = std::get_if<weft::placement::Partial>(&p))
    return {WEFT_PARTIAL, 0, static_cast<int32_t>(q->op), 0};
  return {WEFT_REPLICATE, 0, 0, 0};
}

// How many pieces the placements cut tensor dim d into: the product of the extents of the mesh
// dims that shard it (1 if none does).
int64_t PieceCount(const Layout::Spec& spec, int32_t d) {
  int64_t pieces = 1;
  for (size_t m = 0; m < spec.placements.size(); ++m) {
    const auto* s = std::get_if<weft::placement::Shard>(&spec.placements[m]);
    if (s != nullptr && s->dim == d) pieces *= spec.mesh->shape()[m];
  }
  return pieces;
}

Status CreateLayout(const weft_mesh_t* mesh, int32_t ndim, const int64_t* global_shape,
                    DLDataType dtype, const weft_placement_t* placements,
                    const int64_t* const* split_sizes, const int64_t* split_counts,
                    weft_layout_t** out) {
  if (out == nullptr) return InvalidArgument("layout is NULL");  // its name in the ABI
  WEFT_USE(m, mesh);
  if (ndim < 0 || ndim > WEFT_MAX_TENSOR_NDIM)
    return InvalidArgument("ndim is " + Str(ndim) + " but must be 0.." + Str(WEFT_MAX_TENSOR_NDIM));
  if (ndim > 0) WEFT_REQUIRE(global_shape);
  WEFT_REQUIRE(placements);
  Layout::Spec spec;
  spec.mesh = m->mesh;
  if (ndim > 0) spec.shape.assign(global_shape, global_shape + ndim);
  spec.dtype = weft::DType{dtype.code, dtype.bits, dtype.lanes};
  for (int32_t i = 0; i < m->mesh->ndim(); ++i) {
    WEFT_ASSIGN_OR_RETURN(Placement p, ToPlacement(placements[i], size_t(i)));
    spec.placements.push_back(p);
  }
  if (split_sizes != nullptr) {
    for (int32_t d = 0; d < ndim; ++d) {
      if (split_sizes[d] == nullptr) {
        spec.splits.emplace_back(std::nullopt);
        continue;
      }
      if (split_counts == nullptr)
        return InvalidArgument("split_counts is NULL but split_sizes[" + Str(d) + "] is not");
      // Checked before reading: a wrong count must not make us read (or allocate) that many.
      const int64_t pieces = PieceCount(spec, d);
      if (split_counts[d] != pieces)
        return InvalidArgument("split_counts[" + Str(d) + "] is " + Str(split_counts[d]) +
                               " but the placements cut tensor dim " + Str(d) + " into " +
                               Str(pieces) + " pieces");
      spec.splits.emplace_back(
          std::vector<int64_t>(split_sizes[d], split_sizes[d] + split_counts[d]));
    }
  }
  WEFT_ASSIGN_OR_RETURN(auto layout, Layout::Create(std::move(spec)));
  return weft::api::PublishTo(std::make_unique<LayoutObject>(LayoutObject{std::move(layout)}), out);
}

}  // namespace

extern "C" {

weft_status_t weft_layout_create(const weft_mesh_t* mesh, int32_t ndim, const int64_t* global_shape,
                                 DLDataType dtype, const weft_placement_t* placements,
                                 weft_layout_t** layout) {
  return Guard(__func__, [&] {
    return CreateLayout(mesh, ndim, global_shape, dtype, placements, nullptr, nullptr, layout);
  });
}

weft_status_t weft_layout_create_ragged(const weft_mesh_t* mesh, int32_t ndim,
                                        const int64_t* global_shape, DLDataType dtype,
                                        const weft_placement_t* placements,
                                        const int64_t* const* split_sizes,
                                        const int64_t* split_counts, weft_layout_t** layout) {
  return Guard(__func__, [&] {
    return CreateLayout(mesh, ndim, global_shape, dtype, placements, split_sizes, split_counts,
                        layout);
  });
}

weft_status_t weft_layout_local_shape(const weft_layout_t* layout, int32_t rank, int64_t* shape,
                                      int64_t* offset) {
  // The hot metadata query: no allocation on the success path.
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    const Layout& l = *obj->layout;
    if (l.ndim() > 0) WEFT_REQUIRE(shape);
    if (rank < 0) return InvalidArgument("rank is " + Str(rank) + " but must be >= 0");
    int64_t scratch[WEFT_MAX_TENSOR_NDIM];
    l.LocalBlock(rank, shape, offset != nullptr ? offset : scratch);
    return Status::Ok();
  });
}

weft_status_t weft_layout_destroy(weft_layout_t* layout) {
  return Guard(__func__, [&] { return weft::api::Destroy(layout, "layout"); });
}

weft_status_t weft_layout_ndim(const weft_layout_t* layout, int32_t* ndim) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    WEFT_REQUIRE(ndim);
    *ndim = obj->layout->ndim();
    return Status::Ok();
  });
}

weft_status_t weft_layout_global_shape(const weft_layout_t* layout, int64_t* shape) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    if (obj->layout->ndim() > 0) WEFT_REQUIRE(shape);
    for (int32_t d = 0; d < obj->layout->ndim(); ++d) shape[d] = obj->layout->shape()[d];
    return Status::Ok();
  });
}

weft_status_t weft_layout_dtype(const weft_layout_t* layout, DLDataType* dtype) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    WEFT_REQUIRE(dtype);
    const weft::DType t = obj->layout->dtype();
    *dtype = DLDataType{t.code, t.bits, t.lanes};
    return Status::Ok();
  });
}

weft_status_t weft_layout_placements(const weft_layout_t* layout, weft_placement_t* placements) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    WEFT_REQUIRE(placements);
    const auto& ps = obj->layout->placements();
    for (size_t m = 0; m < ps.size(); ++m) placements[m] = FromPlacement(ps[m]);
    return Status::Ok();
  });
}

weft_status_t weft_layout_split_sizes(const weft_layout_t* layout, int32_t dim, int64_t* sizes,
                                      int64_t len, int64_t* count) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    WEFT_REQUIRE(count);
    const Layout& l = *obj->layout;
    if (dim < 0 || dim >= l.ndim())
      return InvalidArgument("dim is " + Str(dim) + " but the tensor has " + Str(l.ndim()) +
                             " dims");
    *count = l.split(dim).pieces;
    if (sizes == nullptr && len == 0) return Status::Ok();
    WEFT_REQUIRE(sizes);
    if (len < *count)
      return InvalidArgument("len is " + Str(len) + " but dim " + Str(dim) + " has " + Str(*count) +
                             " pieces (see *count)");
    const std::vector<int64_t> resolved = l.ResolvedSizes(dim);
    for (size_t i = 0; i < resolved.size(); ++i) sizes[i] = resolved[i];
    return Status::Ok();
  });
}

weft_status_t weft_layout_equal(const weft_layout_t* a, const weft_layout_t* b, int32_t* equal) {
  return Guard(__func__, [&] {
    WEFT_USE(la, a);
    WEFT_USE(lb, b);
    WEFT_REQUIRE(equal);
    *equal = la->layout->SameAs(*lb->layout) ? 1 : 0;
    return Status::Ok();
  });
}

weft_status_t weft_layout_describe(const weft_layout_t* layout, char* buf, size_t len,
                                   size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, layout);
    return weft::api::WriteText(obj->layout->Describe(), buf, len, needed);
  });
}

}  // extern "C"
