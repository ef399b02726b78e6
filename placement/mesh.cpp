#include "placement/mesh.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace weft::placement {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status ValidateShape(const std::vector<int64_t>& shape, int64_t* size) {
  if (shape.empty() || static_cast<int32_t>(shape.size()) > kMaxMeshDims)
    return InvalidArgument("ndim is " + Str(static_cast<int64_t>(shape.size())) +
                           " but a mesh has 1 to " + Str(kMaxMeshDims) + " dims");
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 1)
      return InvalidArgument("shape[" + Str(static_cast<int64_t>(i)) + "] is " + Str(shape[i]) +
                             " but mesh extents must be at least 1");
    if (shape[i] > kMaxMeshSize / n)
      return InvalidArgument("the mesh shape has more than " + Str(kMaxMeshSize) + " ranks");
    n *= shape[i];
  }
  *size = n;
  return Status::Ok();
}

Status ValidateNames(std::vector<std::string>& names, size_t ndim) {
  if (names.empty()) {
    names.assign(ndim, std::string());
    return Status::Ok();
  }
  if (names.size() != ndim)
    return InvalidArgument("dim_names has " + Str(static_cast<int64_t>(names.size())) +
                           " entries but the mesh has " + Str(static_cast<int64_t>(ndim)) +
                           " dims");
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) continue;
    for (size_t j = 0; j < i; ++j)
      if (names[j] == names[i])
        return InvalidArgument("dim_names[" + Str(static_cast<int64_t>(i)) + "] \"" + names[i] +
                               "\" repeats dim_names[" + Str(static_cast<int64_t>(j)) + "]");
  }
  return Status::Ok();
}

}  // namespace

Result<MeshPtr> Mesh::Create(Spec spec) {
  auto mesh = std::shared_ptr<Mesh>(new Mesh());  // private constructor: make_shared can't reach
  WEFT_RETURN_IF_ERROR(ValidateShape(spec.shape, &mesh->size_));
  WEFT_RETURN_IF_ERROR(ValidateNames(spec.dim_names, spec.shape.size()));
  mesh->context_ = spec.context;
  mesh->world_size_ = spec.world_size;
  mesh->shape_ = std::move(spec.shape);
  mesh->names_ = std::move(spec.dim_names);
  if (spec.ranks) {
    std::vector<int32_t>& ranks = *spec.ranks;
    if (static_cast<int64_t>(ranks.size()) != mesh->size_)
      return InvalidArgument("ranks has " + Str(static_cast<int64_t>(ranks.size())) +
                             " entries but the mesh shape holds " + Str(mesh->size_));
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (ranks[i] < 0 || (spec.world_size >= 0 && ranks[i] >= spec.world_size))
        return InvalidArgument("ranks[" + Str(static_cast<int64_t>(i)) + "] is " + Str(ranks[i]) +
                               " but world ranks are 0.." +
                               (spec.world_size >= 0 ? Str(spec.world_size - 1) : "2^31-1"));
    }
    mesh->explicit_ = std::move(ranks);
    mesh->BuildExplicitIndex();
    if (static_cast<int64_t>(mesh->index_of_.size()) != mesh->size_) {
      for (size_t i = 0; i < mesh->explicit_.size(); ++i)
        if (mesh->index_of_.at(mesh->explicit_[i]) != static_cast<int64_t>(i))
          return InvalidArgument("ranks[" + Str(static_cast<int64_t>(i)) +
                                 "] = " + Str(mesh->explicit_[i]) + " appears twice");
    }
  } else {
    if (spec.world_size >= 0 && mesh->size_ > spec.world_size)
      return InvalidArgument("shape holds " + Str(mesh->size_) + " ranks but the world has " +
                             Str(spec.world_size));
    mesh->strides_.assign(mesh->shape_.size(), 0);
    int64_t stride = 1;
    for (int32_t d = mesh->ndim() - 1; d >= 0; --d) {
      mesh->strides_[d] = mesh->shape_[d] == 1 ? 0 : stride;
      stride *= mesh->shape_[d];
    }
    mesh->BuildAffineOrder();
  }
  return MeshPtr(std::move(mesh));
}

void Mesh::BuildAffineOrder() {
  order_.clear();
  for (int32_t d = 0; d < ndim(); ++d)
    if (shape_[d] > 1) order_.push_back(d);
  std::stable_sort(order_.begin(), order_.end(),
                   [&](int32_t a, int32_t b) { return strides_[a] > strides_[b]; });
}

void Mesh::BuildExplicitIndex() {
  index_of_.clear();
  index_of_.reserve(explicit_.size());
  for (size_t i = 0; i < explicit_.size(); ++i)
    index_of_.emplace(explicit_[i], static_cast<int64_t>(i));
}

int32_t Mesh::DimIndex(std::string_view name) const {
  for (int32_t d = 0; d < ndim(); ++d)
    if (!names_[d].empty() && names_[d] == name) return d;
  return -1;
}

int32_t Mesh::RankAtIndex(int64_t index) const {
  if (!explicit_.empty()) return explicit_[index];
  int64_t r = offset_;
  for (int32_t d = ndim() - 1; d >= 0; --d) {
    r += (index % shape_[d]) * strides_[d];
    index /= shape_[d];
  }
  return static_cast<int32_t>(r);
}

int32_t Mesh::RankAt(const int64_t* coord) const {
  if (explicit_.empty()) {
    int64_t r = offset_;
    for (int32_t d = 0; d < ndim(); ++d) r += coord[d] * strides_[d];
    return static_cast<int32_t>(r);
  }
  int64_t index = 0;
  for (int32_t d = 0; d < ndim(); ++d) index = index * shape_[d] + coord[d];
  return explicit_[index];
}

bool Mesh::Coordinate(int32_t rank, int64_t* coord) const {
  if (!explicit_.empty()) {
    auto it = index_of_.find(rank);
    if (it == index_of_.end()) return false;
    int64_t index = it->second;
    for (int32_t d = ndim() - 1; d >= 0; --d) {
      coord[d] = index % shape_[d];
      index /= shape_[d];
    }
    return true;
  }
  // Affine ranks come from a row-major mesh or a slice of one, so every stride exceeds the
  // largest value the smaller-stride dims can reach: greedy division is exact and unique.
  int64_t rest = static_cast<int64_t>(rank) - offset_;
  if (rest < 0) return false;
  for (int32_t d = 0; d < ndim(); ++d) coord[d] = 0;
  for (int32_t d : order_) {
    const int64_t c = rest / strides_[d];
    if (c >= shape_[d]) return false;
    coord[d] = c;
    rest -= c * strides_[d];
  }
  return rest == 0;
}

std::vector<int32_t> Mesh::Group(int32_t dim, const int64_t* coord) const {
  Coord c{};
  std::copy(coord, coord + ndim(), c.begin());
  std::vector<int32_t> group(static_cast<size_t>(shape_[dim]));
  for (int64_t i = 0; i < shape_[dim]; ++i) {
    c[dim] = i;
    group[i] = RankAt(c.data());
  }
  return group;
}

Result<MeshPtr> Mesh::Slice(std::span<const int32_t> keep, int32_t rank) const {
  if (keep.empty() || static_cast<int32_t>(keep.size()) > ndim())
    return InvalidArgument("nkeep is " + Str(static_cast<int64_t>(keep.size())) +
                           " but must be 1.." + Str(ndim()));
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i] < 0 || keep[i] >= ndim())
      return InvalidArgument("dims[" + Str(static_cast<int64_t>(i)) + "] is " + Str(keep[i]) +
                             " but the mesh has " + Str(ndim()) + " dims");
    if (i > 0 && keep[i] <= keep[i - 1])
      return InvalidArgument("dims[" + Str(static_cast<int64_t>(i)) + "] is " + Str(keep[i]) +
                             " but dims must be strictly ascending");
  }
  Coord coord{};
  if (!Coordinate(rank, coord.data()))
    return InvalidArgument("rank " + Str(rank) + " is not in the mesh");
  auto sub = std::shared_ptr<Mesh>(new Mesh());
  sub->context_ = context_;
  sub->world_size_ = world_size_;
  for (int32_t d : keep) {
    sub->shape_.push_back(shape_[d]);
    sub->names_.push_back(names_[d]);
  }
  sub->size_ = 1;
  for (int64_t s : sub->shape_) sub->size_ *= s;
  if (explicit_.empty()) {
    sub->offset_ = offset_;
    size_t k = 0;
    for (int32_t d = 0; d < ndim(); ++d) {
      if (k < keep.size() && keep[k] == d) {
        sub->strides_.push_back(strides_[d]);
        ++k;
      } else {
        sub->offset_ += coord[d] * strides_[d];
      }
    }
    sub->BuildAffineOrder();
  } else {
    sub->explicit_.resize(static_cast<size_t>(sub->size_));
    Coord sc{};
    for (int64_t i = 0; i < sub->size_; ++i) {
      int64_t idx = i;
      for (int32_t k = sub->ndim() - 1; k >= 0; --k) {
        sc[keep[k]] = idx % sub->shape_[k];
        idx /= sub->shape_[k];
      }
      Coord full = coord;
      for (int32_t d : keep) full[d] = sc[d];
      sub->explicit_[i] = RankAt(full.data());
    }
    sub->BuildExplicitIndex();
  }
  return MeshPtr(std::move(sub));
}

Result<MeshPtr> Mesh::Flatten(int32_t first, int32_t count, std::string name) const {
  if (count < 1 || first < 0 || first > ndim() - count)
    return InvalidArgument("dims [" + Str(first) + ", " + Str(int64_t{first} + count) +
                           ") are not a range of the mesh's " + Str(ndim()) + " dims");
  auto flat = std::shared_ptr<Mesh>(new Mesh());
  flat->context_ = context_;
  flat->world_size_ = world_size_;
  flat->size_ = size_;
  int64_t merged = 1;
  for (int32_t d = first; d < first + count; ++d) merged *= shape_[d];
  for (int32_t d = 0; d < ndim(); ++d) {
    if (d >= first && d < first + count) {
      if (d == first) {
        flat->shape_.push_back(merged);
        flat->names_.push_back(name);
      }
      continue;
    }
    flat->shape_.push_back(shape_[d]);
    flat->names_.push_back(names_[d]);
  }
  for (int32_t d = 0; d < flat->ndim(); ++d)
    if (!flat->names_[d].empty() && flat->DimIndex(flat->names_[d]) != d)
      return InvalidArgument("name \"" + name + "\" is already the name of another dim");
  // Stays affine when the merged dims nest row-major (the common case: default ranks).
  bool affine = explicit_.empty();
  int64_t inner = 0;   // stride of the merged dim: that of its innermost non-unit part
  int64_t expect = 0;  // the stride the next outer non-unit part must have to nest
  for (int32_t d = first + count - 1; affine && d >= first; --d) {
    if (shape_[d] == 1) continue;
    if (inner == 0)
      inner = strides_[d];
    else
      affine = strides_[d] == expect;
    expect = strides_[d] * shape_[d];
  }
  if (affine) {
    flat->offset_ = offset_;
    for (int32_t d = 0; d < ndim(); ++d) {
      if (d >= first && d < first + count) {
        if (d == first) flat->strides_.push_back(merged == 1 ? 0 : inner);
        continue;
      }
      flat->strides_.push_back(strides_[d]);
    }
    flat->BuildAffineOrder();
  } else {
    // Row-major order over the old dims is row-major order over the new ones.
    flat->explicit_.resize(static_cast<size_t>(size_));
    for (int64_t i = 0; i < size_; ++i) flat->explicit_[i] = RankAtIndex(i);
    flat->BuildExplicitIndex();
  }
  return MeshPtr(std::move(flat));
}

bool Mesh::SameAs(const Mesh& o) const {
  if (this == &o) return true;
  if (context_ != o.context_ || shape_ != o.shape_) return false;
  if (explicit_.empty() && o.explicit_.empty())
    return offset_ == o.offset_ && strides_ == o.strides_;
  for (int64_t i = 0; i < size_; ++i)
    if (RankAtIndex(i) != o.RankAtIndex(i)) return false;
  return true;
}

}  // namespace weft::placement
