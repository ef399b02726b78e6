// extern "C" layer for meshes: argument checks, then placement::Mesh.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/src/context_link.hpp"
#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "weft/mesh.h"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;
using weft::api::MeshObject;
using weft::placement::Coord;
using weft::placement::Mesh;

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status CreateMesh(weft_context_t* ctx, int32_t ndim, const int64_t* shape, const int32_t* ranks,
                  const weft_mesh_options_t* opts, weft_mesh_t** out) {
  if (out == nullptr) return InvalidArgument("mesh is NULL");  // its name in the ABI
  if (ndim < 1 || ndim > WEFT_MAX_MESH_NDIM)
    return InvalidArgument("ndim is " + Str(ndim) + " but must be 1.." + Str(WEFT_MAX_MESH_NDIM));
  WEFT_REQUIRE(shape);
  Mesh::Spec spec;
  spec.shape.assign(shape, shape + ndim);
  if (ctx != nullptr) {
    spec.context = weft::api::IdOf(ctx);  // the handle is the mesh's identity of its context
    WEFT_ASSIGN_OR_RETURN(spec.world_size, weft::api::ContextWorldSize(ctx, "ctx"));
  }
  if (ranks != nullptr) {
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; ++i) {
      if (shape[i] < 1 || shape[i] > INT32_MAX / n) {
        n = -1;  // Mesh::Create names the bad extent
        break;
      }
      n *= shape[i];
    }
    if (n > 0) spec.ranks.emplace(ranks, ranks + n);
  }
  if (opts != nullptr) {
    WEFT_RETURN_IF_ERROR(
        weft::api::CheckStructSize(opts, sizeof(*opts), sizeof(weft_mesh_options_t), "opts"));
    if (opts->dim_names != nullptr)
      for (int32_t i = 0; i < ndim; ++i)
        spec.dim_names.emplace_back(opts->dim_names[i] ? opts->dim_names[i] : "");
  }
  WEFT_ASSIGN_OR_RETURN(auto mesh, Mesh::Create(std::move(spec)));
  return weft::api::PublishTo(std::make_unique<MeshObject>(MeshObject{std::move(mesh)}), out);
}

Status CheckDim(const Mesh& mesh, int32_t dim, const char* name = "dim") {
  if (dim < 0 || dim >= mesh.ndim())
    return InvalidArgument(std::string(name) + " is " + Str(dim) + " but the mesh has " +
                           Str(mesh.ndim()) + " dims");
  return Status::Ok();
}

// A negative rank on a context's mesh: the calling process's rank.
Status ResolveRank(const Mesh& mesh, int32_t* rank) {
  if (*rank < 0 && !mesh.context().abstract()) {
    WEFT_ASSIGN_OR_RETURN(*rank, weft::api::ContextRank(mesh.context(), "mesh's context"));
  }
  if (*rank < 0) return InvalidArgument("rank is " + Str(*rank) + " but must be >= 0");
  return Status::Ok();
}

Status WrapMesh(weft::Result<weft::placement::MeshPtr> r, weft_mesh_t** out) {
  if (!r.ok()) return r.status();
  return weft::api::PublishTo(std::make_unique<MeshObject>(MeshObject{std::move(r).value()}), out);
}

}  // namespace

extern "C" {

weft_status_t weft_mesh_create(weft_context_t* ctx, int32_t ndim, const int64_t* shape,
                               const int32_t* ranks, weft_mesh_t** mesh) {
  return Guard(__func__, [&] { return CreateMesh(ctx, ndim, shape, ranks, nullptr, mesh); });
}

weft_status_t weft_mesh_create_ex(weft_context_t* ctx, int32_t ndim, const int64_t* shape,
                                  const int32_t* ranks, const weft_mesh_options_t* opts,
                                  weft_mesh_t** mesh) {
  return Guard(__func__, [&] { return CreateMesh(ctx, ndim, shape, ranks, opts, mesh); });
}

weft_status_t weft_mesh_destroy(weft_mesh_t* mesh) {
  return Guard(__func__, [&] { return weft::api::Destroy(mesh, "mesh"); });
}

weft_status_t weft_mesh_ndim(const weft_mesh_t* mesh, int32_t* ndim) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(ndim);
    *ndim = m->mesh->ndim();
    return Status::Ok();
  });
}

weft_status_t weft_mesh_shape(const weft_mesh_t* mesh, int64_t* shape) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(shape);
    for (int32_t d = 0; d < m->mesh->ndim(); ++d) shape[d] = m->mesh->shape()[d];
    return Status::Ok();
  });
}

weft_status_t weft_mesh_size(const weft_mesh_t* mesh, int64_t* size) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(size);
    *size = m->mesh->size();
    return Status::Ok();
  });
}

weft_status_t weft_mesh_coordinate(const weft_mesh_t* mesh, int32_t rank, int64_t* coord) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(coord);
    Coord c{};
    if (rank < 0 || !m->mesh->Coordinate(rank, c.data()))
      return InvalidArgument("rank " + Str(rank) + " is not in the mesh");
    for (int32_t d = 0; d < m->mesh->ndim(); ++d) coord[d] = c[d];
    return Status::Ok();
  });
}

weft_status_t weft_mesh_contains(const weft_mesh_t* mesh, int32_t rank, int32_t* contains) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(contains);
    Coord c{};
    *contains = rank >= 0 && m->mesh->Coordinate(rank, c.data()) ? 1 : 0;
    return Status::Ok();
  });
}

weft_status_t weft_mesh_rank_at(const weft_mesh_t* mesh, const int64_t* coord, int32_t* rank) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(coord);
    WEFT_REQUIRE(rank);
    for (int32_t d = 0; d < m->mesh->ndim(); ++d)
      if (coord[d] < 0 || coord[d] >= m->mesh->shape()[d])
        return InvalidArgument("coord[" + Str(d) + "] is " + Str(coord[d]) + " but must be 0.." +
                               Str(m->mesh->shape()[d] - 1));
    *rank = m->mesh->RankAt(coord);
    return Status::Ok();
  });
}

weft_status_t weft_mesh_group(const weft_mesh_t* mesh, int32_t dim, int32_t rank, int32_t* ranks,
                              int64_t len) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(ranks);
    WEFT_RETURN_IF_ERROR(CheckDim(*m->mesh, dim));
    if (len < m->mesh->shape()[dim])
      return InvalidArgument("len is " + Str(len) + " but the group has " +
                             Str(m->mesh->shape()[dim]) + " ranks");
    Coord c{};
    if (rank < 0 || !m->mesh->Coordinate(rank, c.data()))
      return InvalidArgument("rank " + Str(rank) + " is not in the mesh");
    const std::vector<int32_t> group = m->mesh->Group(dim, c.data());
    for (size_t i = 0; i < group.size(); ++i) ranks[i] = group[i];
    return Status::Ok();
  });
}

weft_status_t weft_mesh_slice(const weft_mesh_t* mesh, int32_t nkeep, const int32_t* dims,
                              int32_t rank, weft_mesh_t** out) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(out);
    if (nkeep < 1 || nkeep > m->mesh->ndim())
      return InvalidArgument("nkeep is " + Str(nkeep) + " but must be 1.." + Str(m->mesh->ndim()));
    WEFT_REQUIRE(dims);
    WEFT_RETURN_IF_ERROR(ResolveRank(*m->mesh, &rank));
    return WrapMesh(m->mesh->Slice({dims, static_cast<size_t>(nkeep)}, rank), out);
  });
}

weft_status_t weft_mesh_slice_by_names(const weft_mesh_t* mesh, int32_t nkeep,
                                       const char* const* names, int32_t rank, weft_mesh_t** out) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(out);
    if (nkeep < 1 || nkeep > m->mesh->ndim())
      return InvalidArgument("nkeep is " + Str(nkeep) + " but must be 1.." + Str(m->mesh->ndim()));
    WEFT_REQUIRE(names);
    std::vector<int32_t> keep;
    for (int32_t i = 0; i < nkeep; ++i) {
      const int32_t d = names[i] ? m->mesh->DimIndex(names[i]) : -1;
      if (d < 0)
        return InvalidArgument("names[" + Str(i) + "] is " +
                               (names[i] ? "\"" + std::string(names[i]) + "\"" : "NULL") +
                               " but the mesh has no dim of that name");
      for (int32_t k : keep)
        if (k == d) return InvalidArgument("names[" + Str(i) + "] repeats a dim");
      keep.push_back(d);
    }
    std::sort(keep.begin(), keep.end());
    WEFT_RETURN_IF_ERROR(ResolveRank(*m->mesh, &rank));
    return WrapMesh(m->mesh->Slice(keep, rank), out);
  });
}

weft_status_t weft_mesh_flatten(const weft_mesh_t* mesh, int32_t first, int32_t count,
                                const char* name, weft_mesh_t** out) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(out);
    // Named here: placement::Mesh::Flatten's message does not know the ABI's argument names.
    const int32_t ndim = m->mesh->ndim();
    if (first < 0 || first >= ndim)
      return InvalidArgument("first is " + Str(first) + " but the mesh has " + Str(ndim) + " dims");
    if (count < 1 || count > ndim - first)
      return InvalidArgument("count is " + Str(count) + " but must be 1.." + Str(ndim - first) +
                             " for first " + Str(first) + " on a mesh of " + Str(ndim) + " dims");
    return WrapMesh(m->mesh->Flatten(first, count, name ? name : ""), out);
  });
}

weft_status_t weft_mesh_dim_index(const weft_mesh_t* mesh, const char* name, int32_t* dim) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_REQUIRE(name);
    WEFT_REQUIRE(dim);
    const int32_t d = m->mesh->DimIndex(name);
    if (d < 0) return InvalidArgument("name \"" + std::string(name) + "\" names no dim");
    *dim = d;
    return Status::Ok();
  });
}

weft_status_t weft_mesh_dim_name(const weft_mesh_t* mesh, int32_t dim, char* buf, size_t len,
                                 size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    WEFT_RETURN_IF_ERROR(CheckDim(*m->mesh, dim));
    return weft::api::WriteText(m->mesh->dim_name(dim), buf, len, needed);
  });
}

weft_status_t weft_mesh_equal(const weft_mesh_t* a, const weft_mesh_t* b, int32_t* equal) {
  return Guard(__func__, [&] {
    WEFT_USE(ma, a);
    WEFT_USE(mb, b);
    WEFT_REQUIRE(equal);
    *equal = ma->mesh->SameAs(*mb->mesh) ? 1 : 0;
    return Status::Ok();
  });
}

weft_status_t weft_mesh_describe(const weft_mesh_t* mesh, char* buf, size_t len, size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(m, mesh);
    return weft::api::WriteText(weft::placement::DescribeMesh(*m->mesh), buf, len, needed);
  });
}

}  // extern "C"
