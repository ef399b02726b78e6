#include "api/src/checkpoint_load.hpp"

#include <cstddef>
#include <cstring>
#include <map>

#include "api/src/checkpoint_common.hpp"
#include "api/src/checkpoint_device.hpp"
#include "api/src/guard.hpp"
#include "checkpoint/crc32c.hpp"
#include "checkpoint/fs.hpp"
#include "checkpoint/index.hpp"
#include "checkpoint/load_plan.hpp"

namespace weft::api::ckpt {
namespace {

namespace ck = weft::checkpoint;
using placement::executor::TensorView;

Status CheckArgs(const World& w, const char* path, int32_t n, const char* const* names,
                 const weft_layout_t* const* layouts, DLTensor* const* tensors,
                 const weft_checkpoint_load_options_t* opts, std::vector<Item>* out) {
  if (opts != nullptr)
    WEFT_RETURN_IF_ERROR(CheckStructSize(opts, sizeof(*opts),
                                         offsetof(weft_checkpoint_load_options_t, stream), "opts"));
  if (opts != nullptr && opts->verify != 0 && opts->verify != 1)
    return InvalidArgument("opts->verify is " + std::to_string(opts->verify) +
                           " but must be 0 or 1");
  WEFT_ASSIGN_OR_RETURN(std::vector<Item> items, CheckItems(w, path, n, names, layouts));
  if (n > 0 && tensors == nullptr) return InvalidArgument("tensors is NULL");
  for (int32_t i = 0; i < n; ++i) {
    for (const auto& p : items[i].layout->placements())
      if (placement::IsPartial(p))
        return InvalidArgument("layouts[" + std::to_string(i) + "] (tensor " + items[i].name +
                               ") has a Partial placement: load into Replicate or Shard");
    WEFT_RETURN_IF_ERROR(
        CheckBlockView(w, tensors[i], "tensors[" + std::to_string(i) + "]", true, items[i]));
  }
  *out = std::move(items);
  return Status::Ok();
}

// The saved tensor each request names, checked against the request's dtype and shape.
Result<std::vector<const ck::IndexTensor*>> Match(const ck::Index& index,
                                                  const std::vector<Item>& items,
                                                  const std::string& where) {
  std::vector<const ck::IndexTensor*> out;
  for (const Item& it : items) {
    const auto f = index.by_name.find(it.name);
    if (f == index.by_name.end())
      return InvalidArgument("tensor " + it.name + " is not in the checkpoint " + where);
    const ck::IndexTensor& t = index.tensors[f->second];
    if (!(t.dtype == it.layout->dtype()))
      return InvalidArgument("tensor " + it.name + " was saved as " + DTypeName(t.dtype) +
                             " but is loaded as " + DTypeName(it.layout->dtype()));
    if (t.shape != it.layout->shape()) {
      std::string saved, wanted;
      for (int64_t e : t.shape) saved += (saved.empty() ? "" : ",") + std::to_string(e);
      for (int64_t e : it.layout->shape())
        wanted += (wanted.empty() ? "" : ",") + std::to_string(e);
      return InvalidArgument("tensor " + it.name + " was saved with shape [" + saved +
                             "] but is loaded with shape [" + wanted + "]");
    }
    out.push_back(&t);
  }
  return out;
}

// Opens each file once per load.
class Files {
 public:
  Files(const std::string& dir, const ck::Index& index) : dir_(dir), index_(index) {}
  Result<const ck::File*> Get(int32_t file) {
    auto it = open_.find(file);
    if (it == open_.end()) {
      WEFT_ASSIGN_OR_RETURN(ck::File f, ck::File::Open(dir_ + "/" + index_.files[file]));
      it = open_.emplace(file, std::move(f)).first;
    }
    return &it->second;
  }

 private:
  std::string dir_;
  const ck::Index& index_;
  std::map<int32_t, ck::File> open_;
};

Status ReadRuns(const ck::File& f, const std::vector<ck::Run>& runs, char* into) {
  for (const ck::Run& r : runs) {
    WEFT_RETURN_IF_ERROR(f.ReadAt(into, r.nbytes, r.offset));
    into += r.nbytes;
  }
  return Status::Ok();
}

Status CheckCrc(const ck::IndexBox& b, const char* data) {
  const uint32_t crc = ck::Crc32c(0, data, b.nbytes);
  if (crc != b.crc32c)
    return Status(Code::kSystem, "crc32c mismatch: the index says " + std::to_string(b.crc32c) +
                                     ", the data gives " + std::to_string(crc) +
                                     " (the file is corrupt)");
  return Status::Ok();
}

// One box's part of the block: straight into the destination when the part is contiguous
// there, else through `staging`; with `verify`, a partly read box is read whole to check it.
Status ReadBox(const ck::IndexTensor& t, const ck::BoxRead& r, const ck::File& f,
               const TensorView& dst, bool verify, std::vector<char>& staging) {
  namespace ex = placement::executor;
  const ck::IndexBox& b = t.boxes[r.box];
  WEFT_ASSIGN_OR_RETURN(auto q, device::Queue::For(DLDevice{kDLCPU, 0}, nullptr));
  if (!r.whole && verify) {
    staging.resize(b.nbytes);
    WEFT_RETURN_IF_ERROR(f.ReadAt(staging.data(), b.nbytes, b.byte_offset));
    WEFT_RETURN_IF_ERROR(CheckCrc(b, staging.data()));
    const TensorView whole = ex::CompactView(staging.data(), b.box, dst.item);
    return ex::CopyBox(q, whole, dst, r.region);
  }
  const auto bytes = static_cast<size_t>(r.region.Volume() * dst.item);
  char* into = nullptr;
  if (ex::IsContiguous(dst, r.region)) {
    into = dst.At(r.region.offset.data());
  } else {
    staging.resize(bytes);
    into = staging.data();
  }
  WEFT_RETURN_IF_ERROR(ReadRuns(f, r.runs, into));
  if (r.whole) WEFT_RETURN_IF_ERROR(CheckCrc(b, into));
  if (into == staging.data()) WEFT_RETURN_IF_ERROR(ex::Unpack(q, into, dst, r.region));
  return Status::Ok();
}

Status ReadAll(const ck::Index& index, const std::vector<const ck::IndexTensor*>& saved,
               const std::vector<Item>& items, Files& files, bool verify) {
  std::vector<char> staging;
  for (size_t i = 0; i < items.size(); ++i) {
    const ck::IndexTensor& t = *saved[i];
    for (const ck::BoxRead& r : ck::PlanReads(t, items[i].view.block)) {
      const ck::IndexBox& b = t.boxes[r.box];
      Status s;
      Result<const ck::File*> f = files.Get(b.file);
      s = f.ok() ? ReadBox(t, r, **f, items[i].view, verify, staging) : f.status();
      if (!s.ok())
        return Status(s.code(), "tensor " + t.name + ", box " + ck::BoxString(b.box) + " in " +
                                    index.files[b.file] + ": " + s.message());
    }
  }
  return Status::Ok();
}

}  // namespace

Status Load(weft_context_t* ctx, const char* path, int32_t n, const char* const* names,
            const weft_layout_t* const* layouts, DLTensor* const* tensors,
            const weft_checkpoint_load_options_t* opts) {
  const bool opts_ok =
      opts != nullptr && opts->struct_size >= offsetof(weft_checkpoint_load_options_t, stream);
  const int64_t timeout = opts_ok ? opts->timeout_ms : 0;
  constexpr size_t kStreamEnd = offsetof(weft_checkpoint_load_options_t, stream) + sizeof(void*);
  HostCopies host(opts != nullptr && opts->struct_size >= kStreamEnd ? opts->stream : nullptr);
  WEFT_ASSIGN_OR_RETURN(World w, WorldOf(ctx, timeout));
  std::vector<Item> items;
  Status mine = CheckArgs(w, path, n, names, layouts, tensors, opts, &items);
  uint64_t digest = 0;
  ck::Index index;
  std::vector<const ck::IndexTensor*> saved;
  const std::string dir = mine.ok() ? ck::StripSlashes(path) : std::string();
  if (mine.ok()) {
    digest = Fnv(DigestOf(items), path, std::strlen(path));
    const std::string where = dir + "/" + ck::kIndexName;
    Result<std::string> text = ck::ReadWholeFile(where);
    Result<ck::Index> parsed = text.ok() ? ck::IndexFromJson(*text, where) : text.status();
    mine = parsed.status();
    if (mine.ok()) index = std::move(parsed).value();
    Result<std::vector<const ck::IndexTensor*>> m =
        mine.ok() ? Match(index, items, dir) : Result<std::vector<const ck::IndexTensor*>>(mine);
    mine = m.status();
    if (mine.ok()) saved = std::move(m).value();
  }
  WEFT_RETURN_IF_ERROR(Agree(w, mine, digest));
  Files files(dir, index);
  const bool verify = opts != nullptr && opts->verify == 1;
  host.Redirect(items);
  Status read = ReadAll(index, saved, items, files, verify);
  if (read.ok()) read = host.Upload();
  return Agree(w, read);
}

}  // namespace weft::api::ckpt
