// extern "C" layer for checkpoints: the collective save and load (drivers in
// checkpoint_save.cpp and checkpoint_load.cpp) and the local listing of an opened index.
#include <cstring>

#include "api/src/checkpoint_load.hpp"
#include "api/src/checkpoint_save.hpp"
#include "api/src/guard.hpp"
#include "api/src/handle_ref.hpp"
#include "checkpoint/fs.hpp"
#include "checkpoint/index.hpp"
#include "weft/checkpoint.h"

namespace weft::api {

struct CheckpointObject {
  checkpoint::Index index;
};
template <>
struct HandleTraits<weft_checkpoint> {
  using Object = CheckpointObject;
  static constexpr HandleKind kKind = HandleKind::kCheckpoint;
};

}  // namespace weft::api

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;

namespace {

namespace ck = weft::checkpoint;

Status CheckIndex(const weft::api::CheckpointObject& c, int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= c.index.tensors.size())
    return InvalidArgument("index is " + std::to_string(index) + " but the checkpoint has " +
                           std::to_string(c.index.tensors.size()) + " tensors");
  return Status::Ok();
}

Status FillInfo(const ck::IndexTensor& t, weft_checkpoint_tensor_info_t* info) {
  WEFT_RETURN_IF_ERROR(weft::api::CheckStructSize(info, sizeof(*info), sizeof(*info), "info"));
  weft_checkpoint_tensor_info_t out{};
  out.struct_size = sizeof(out);
  out.ndim = static_cast<int32_t>(t.shape.size());
  out.dtype = DLDataType{t.dtype.code, t.dtype.bits, t.dtype.lanes};
  out.mesh_ndim = static_cast<int32_t>(t.mesh_shape.size());
  if (out.mesh_ndim > WEFT_MAX_MESH_NDIM || t.placements.size() != t.mesh_shape.size())
    return InvalidArgument("tensor " + t.name + " has a saved mesh this Weft cannot describe");
  out.num_boxes = static_cast<int64_t>(t.boxes.size());
  for (const ck::IndexBox& b : t.boxes) out.nbytes += static_cast<int64_t>(b.nbytes);
  std::copy(t.shape.begin(), t.shape.end(), out.shape);
  std::copy(t.mesh_shape.begin(), t.mesh_shape.end(), out.mesh_shape);
  for (size_t m = 0; m < t.placements.size(); ++m)
    out.placements[m] = {t.placements[m].kind, t.placements[m].dim, 0, 0};
  *info = out;
  return Status::Ok();
}

}  // namespace

extern "C" {

weft_status_t weft_checkpoint_save(weft_context_t* ctx, const char* path, int32_t n,
                                   const char* const* names, const weft_layout_t* const* layouts,
                                   const DLTensor* const* tensors,
                                   const weft_checkpoint_save_options_t* opts, weft_work_t** work) {
  return Guard(__func__, [&] {
    return weft::api::ckpt::Save(ctx, path, n, names, layouts, tensors, opts, work);
  });
}

weft_status_t weft_checkpoint_load(weft_context_t* ctx, const char* path, int32_t n,
                                   const char* const* names, const weft_layout_t* const* layouts,
                                   DLTensor* const* tensors,
                                   const weft_checkpoint_load_options_t* opts) {
  return Guard(__func__,
               [&] { return weft::api::ckpt::Load(ctx, path, n, names, layouts, tensors, opts); });
}

weft_status_t weft_checkpoint_open(const char* path, weft_checkpoint_t** ckpt) {
  return Guard(__func__, [&]() -> Status {
    WEFT_REQUIRE(path);
    WEFT_REQUIRE(ckpt);
    const std::string where = ck::StripSlashes(path) + "/" + ck::kIndexName;
    WEFT_ASSIGN_OR_RETURN(std::string text, ck::ReadWholeFile(where));
    auto obj = std::make_unique<weft::api::CheckpointObject>();
    WEFT_ASSIGN_OR_RETURN(obj->index, ck::IndexFromJson(text, where));
    return weft::api::PublishTo(std::move(obj), ckpt);
  });
}

weft_status_t weft_checkpoint_close(weft_checkpoint_t* ckpt) {
  return Guard(__func__, [&] { return weft::api::Destroy(ckpt, "ckpt"); });
}

weft_status_t weft_checkpoint_num_tensors(const weft_checkpoint_t* ckpt, int32_t* n) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(c, ckpt);
    WEFT_REQUIRE(n);
    *n = static_cast<int32_t>(c->index.tensors.size());
    return Status::Ok();
  });
}

weft_status_t weft_checkpoint_find(const weft_checkpoint_t* ckpt, const char* name,
                                   int32_t* index) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(c, ckpt);
    WEFT_REQUIRE(name);
    WEFT_REQUIRE(index);
    const auto it = c->index.by_name.find(name);
    if (it == c->index.by_name.end())
      return InvalidArgument(std::string("name: the checkpoint has no tensor ") + name);
    *index = static_cast<int32_t>(it->second);
    return Status::Ok();
  });
}

weft_status_t weft_checkpoint_tensor_name(const weft_checkpoint_t* ckpt, int32_t index, char* buf,
                                          size_t len, size_t* needed) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(c, ckpt);
    WEFT_RETURN_IF_ERROR(CheckIndex(*c, index));
    return weft::api::WriteText(c->index.tensors[index].name, buf, len, needed);
  });
}

weft_status_t weft_checkpoint_tensor_info(const weft_checkpoint_t* ckpt, int32_t index,
                                          weft_checkpoint_tensor_info_t* info) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(c, ckpt);
    WEFT_REQUIRE(info);
    WEFT_RETURN_IF_ERROR(CheckIndex(*c, index));
    return FillInfo(c->index.tensors[index], info);
  });
}

weft_status_t weft_checkpoint_tensor_pieces(const weft_checkpoint_t* ckpt, int32_t index,
                                            int32_t dim, int64_t* sizes, int64_t len,
                                            int64_t* count) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(c, ckpt);
    WEFT_REQUIRE(count);
    WEFT_RETURN_IF_ERROR(CheckIndex(*c, index));
    const ck::IndexTensor& t = c->index.tensors[index];
    if (dim < 0 || static_cast<size_t>(dim) >= t.pieces.size())
      return InvalidArgument("dim is " + std::to_string(dim) + " but tensor " + t.name + " has " +
                             std::to_string(t.pieces.size()) + " dims");
    const auto& p = t.pieces[dim];
    *count = static_cast<int64_t>(p.size());
    if (len < *count) return Status::Ok();
    WEFT_REQUIRE(sizes);
    std::copy(p.begin(), p.end(), sizes);
    return Status::Ok();
  });
}

}  // extern "C"
