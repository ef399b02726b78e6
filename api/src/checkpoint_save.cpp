#include "api/src/checkpoint_save.hpp"

#include <cstdio>
#include <cstring>
#include <map>

#include "api/src/checkpoint_common.hpp"
#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/plan_cache.hpp"
#include "api/src/plan_handle.hpp"
#include "checkpoint/crc32c.hpp"
#include "checkpoint/fs.hpp"
#include "checkpoint/index.hpp"
#include "checkpoint/safetensors.hpp"
#include "checkpoint/save_plan.hpp"
#include "placement/limits.hpp"

namespace weft::api::ckpt {
namespace {

namespace ck = weft::checkpoint;
using placement::Layout;
using placement::LayoutPtr;
using placement::executor::TensorView;

std::string FileName(int32_t rank) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "rank-%05d.safetensors", rank);
  return buf;
}

std::string KeyOf(const std::string& name, const Box& b) {
  std::string k = name + "@";
  for (int32_t d = 0; d < b.ndim; ++d) k += (d ? "," : "") + std::to_string(b.offset[d]);
  return k;
}

Status CheckArgs(const World& w, const char* path, int32_t n, const char* const* names,
                 const weft_layout_t* const* layouts, const DLTensor* const* tensors,
                 const weft_checkpoint_save_options_t* opts, weft_work_t** work,
                 std::vector<Item>* out) {
  if (opts != nullptr)
    WEFT_RETURN_IF_ERROR(CheckStructSize(opts, sizeof(*opts), sizeof(*opts), "opts"));
  if (opts != nullptr && opts->overwrite != 0 && opts->overwrite != 1)
    return InvalidArgument("opts->overwrite is " + std::to_string(opts->overwrite) +
                           " but must be 0 or 1");
  if (work != nullptr) return Unsupported("work is not NULL: asynchronous saves are not built yet");
  WEFT_ASSIGN_OR_RETURN(std::vector<Item> items, CheckItems(w, path, n, names, layouts));
  if (n > 0 && tensors == nullptr) return InvalidArgument("tensors is NULL");
  for (int32_t i = 0; i < n; ++i) {
    WEFT_RETURN_IF_ERROR(ck::StDTypeName(items[i].layout->dtype()).status());
    WEFT_RETURN_IF_ERROR(
        CheckBlockView(w, tensors[i], "tensors[" + std::to_string(i) + "]", false, items[i]));
  }
  *out = std::move(items);
  return Status::Ok();
}

// The layout with Partial replaced by Replicate (same mesh, same pieces).
Result<LayoutPtr> Reduced(const Layout& l) {
  Layout::Spec spec;
  spec.mesh = l.mesh_ptr();
  spec.shape = l.shape();
  spec.dtype = l.dtype();
  for (const auto& p : l.placements())
    spec.placements.push_back(placement::IsPartial(p) ? placement::Placement(placement::Replicate{})
                                                      : p);
  for (int32_t d = 0; d < l.ndim(); ++d) {
    if (l.split(d).is_explicit())
      spec.splits.emplace_back(l.ResolvedSizes(d));
    else
      spec.splits.emplace_back(std::nullopt);
  }
  return Layout::Create(std::move(spec));
}

DLTensor CompactTensor(char* data, DType t, int64_t* shape, int32_t ndim) {
  DLTensor x{};
  x.data = data;
  x.device = {kDLCPU, 0};
  x.ndim = ndim;
  x.dtype = DLDataType{t.code, t.bits, t.lanes};
  x.shape = shape;
  return x;
}

// Replaces every Partial tensor by its reduction (collective, in item order on every rank);
// the reduced blocks live in `buffers`.
Status ReducePartials(const World& w, const DLTensor* const* tensors, std::vector<Item>& items,
                      std::vector<std::vector<char>>& buffers) {
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    bool partial = false;
    for (const auto& p : it.layout->placements()) partial |= placement::IsPartial(p);
    if (!partial) continue;
    WEFT_ASSIGN_OR_RETURN(LayoutPtr saved, Reduced(*it.layout));
    Box in_block = it.view.block, out_block = ck::BlockOf(*saved, w.rank);
    buffers.emplace_back(static_cast<size_t>(out_block.Volume() * it.view.item));
    char* data = buffers.back().data();
    DLTensor empty_in =
        CompactTensor(nullptr, it.layout->dtype(), in_block.shape.data(), in_block.ndim);
    const DLTensor* in = tensors[i] != nullptr ? tensors[i] : &empty_in;
    DLTensor out = CompactTensor(data, saved->dtype(), out_block.shape.data(), out_block.ndim);
    DLTensor* outp = &out;
    Ref<Context> c;
    WEFT_RETURN_IF_ERROR(RunContext(it.layout->mesh().context(), "layouts", &c));
    WEFT_ASSIGN_OR_RETURN(PlanRunner runner, c->plan_cache().Get(it.layout, saved));
    WEFT_RETURN_IF_ERROR(
        ExecutePlan(*c, std::move(runner), {}, 1, &in, &outp, nullptr, &w.call, nullptr, true));
    it.layout = saved;
    it.view = placement::executor::CompactView(data, out_block, it.view.item);
  }
  return Status::Ok();
}

// Whether this rank writes item i's block.
bool Writes(const World& w, const Item& it, size_t i) {
  std::array<int64_t, placement::kMaxMeshDims> coord{};
  if (!it.layout->mesh().Coordinate(w.rank, coord.data())) return false;
  return !it.view.block.Empty() && ck::IsWriter(*it.layout, coord.data(), static_cast<int64_t>(i));
}

struct Written {
  uint64_t data_start = 0;
  std::vector<uint32_t> crcs;  // per box written, in item order
};

// Writes this rank's file (when it writes any box): header, then each box row-major.
Result<Written> WriteMine(const World& w, const std::string& dir, const std::vector<Item>& items) {
  std::vector<ck::StEntry> entries;
  std::vector<size_t> which;
  uint64_t at = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!Writes(w, items[i], i)) continue;
    const Box& b = items[i].view.block;
    const auto bytes = static_cast<uint64_t>(b.Volume() * items[i].view.item);
    entries.push_back({KeyOf(items[i].name, b), items[i].layout->dtype(),
                       std::vector<int64_t>(b.shape.begin(), b.shape.begin() + b.ndim), at,
                       at + bytes});
    which.push_back(i);
    at += bytes;
  }
  Written out;
  if (entries.empty()) return out;
  WEFT_ASSIGN_OR_RETURN(
      std::string header,
      ck::StHeader(entries, {{"format", "weft-checkpoint"}, {"rank", std::to_string(w.rank)}}));
  out.data_start = header.size();
  const std::string path = dir + "/" + FileName(w.rank);
  WEFT_ASSIGN_OR_RETURN(ck::File f, ck::File::Create(path));
  WEFT_RETURN_IF_ERROR(f.WriteAll(header.data(), header.size()));
  WEFT_ASSIGN_OR_RETURN(auto q, device::Queue::For(DLDevice{kDLCPU, 0}, nullptr));
  std::vector<char> staging;
  for (size_t e = 0; e < entries.size(); ++e) {
    const TensorView& v = items[which[e]].view;
    const size_t bytes = entries[e].end - entries[e].begin;
    const char* data = v.data;
    if (!placement::executor::IsContiguous(v, v.block)) {
      staging.resize(bytes);
      WEFT_RETURN_IF_ERROR(placement::executor::Pack(q, v, v.block, staging.data()));
      data = staging.data();
    }
    out.crcs.push_back(ck::Crc32c(0, data, bytes));
    WEFT_RETURN_IF_ERROR(f.WriteAll(data, bytes));
  }
  WEFT_RETURN_IF_ERROR(f.Sync());
  return out;
}

// Every box of the save in a fixed order (item, then mesh order), the same on every rank.
std::vector<std::vector<ck::PlannedBox>> AllBoxes(const std::vector<Item>& items) {
  std::vector<std::vector<ck::PlannedBox>> all;
  for (size_t i = 0; i < items.size(); ++i)
    all.push_back(ck::PlanBoxes(*items[i].layout, static_cast<int64_t>(i)));
  return all;
}

// Gathers every box's crc32c and every file's data start: one sum over the world.
Result<std::vector<uint64_t>> Gather(const World& w, const std::vector<Item>& items,
                                     const std::vector<std::vector<ck::PlannedBox>>& all,
                                     const Written& mine) {
  size_t total = 0;
  for (const auto& boxes : all) total += boxes.size();
  std::vector<uint64_t> v(total + static_cast<size_t>(w.size), 0);
  size_t slot = 0, k = 0;
  for (size_t i = 0; i < items.size(); ++i)
    for (const ck::PlannedBox& pb : all[i]) {
      if (pb.rank == w.rank) v[slot] = mine.crcs[k++];
      ++slot;
    }
  v[total + static_cast<size_t>(w.rank)] = mine.data_start;
  WEFT_RETURN_IF_ERROR(SumAll(w, v));
  return v;
}

ck::Index BuildIndex(const World& w, const std::vector<Item>& items,
                     const std::vector<std::vector<ck::PlannedBox>>& all,
                     const std::vector<uint64_t>& gathered) {
  ck::Index index;
  index.world_size = w.size;
  size_t total = gathered.size() - static_cast<size_t>(w.size);
  std::map<int32_t, int32_t> file_of;  // writer rank -> file index, in rank order
  for (const auto& boxes : all)
    for (const ck::PlannedBox& pb : boxes) file_of.emplace(pb.rank, 0);
  for (auto& [rank, f] : file_of) {
    f = static_cast<int32_t>(index.files.size());
    index.files.push_back(FileName(rank));
  }
  std::map<int32_t, uint64_t> next;  // writer rank -> next data offset (relative)
  size_t slot = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const Layout& l = *items[i].layout;
    ck::IndexTensor t{items[i].name, l.dtype(), l.shape(), l.mesh().shape(), {}, ck::Pieces(l)};
    for (const auto& p : l.placements())
      t.placements.push_back(placement::IsShard(p)
                                 ? ck::SavedPlacement{1, std::get<placement::Shard>(p).dim}
                                 : ck::SavedPlacement{0, 0});
    for (const ck::PlannedBox& pb : all[i]) {
      ck::IndexBox b;
      b.box = pb.box;
      b.file = file_of[pb.rank];
      b.key = KeyOf(t.name, pb.box);
      b.nbytes = static_cast<uint64_t>(pb.box.Volume() * ItemSize(l.dtype()));
      b.byte_offset = gathered[total + static_cast<size_t>(pb.rank)] + next[pb.rank];
      next[pb.rank] += b.nbytes;
      b.crc32c = static_cast<uint32_t>(gathered[slot++]);
      t.boxes.push_back(std::move(b));
    }
    index.tensors.push_back(std::move(t));
  }
  return index;
}

// Rank 0: the index, fsyncs, and the rename that publishes the checkpoint.
Status Commit(const std::string& tmp, const std::string& path, bool overwrite, ck::Index index) {
  for (ck::IndexTensor& t : index.tensors) WEFT_RETURN_IF_ERROR(ck::Finish(t, "the new index"));
  WEFT_RETURN_IF_ERROR(ck::WriteWholeFile(tmp + "/" + ck::kIndexName, ck::IndexToJson(index)));
  WEFT_RETURN_IF_ERROR(ck::SyncDir(tmp));
  const bool replaced = overwrite && ck::Exists(path);
  WEFT_RETURN_IF_ERROR(ck::PublishDir(tmp, path, overwrite));
  WEFT_RETURN_IF_ERROR(ck::SyncDir(ck::ParentDir(path)));
  // After an exchange the old checkpoint sits at tmp; the new one is already durable.
  if (replaced) WEFT_RETURN_IF_ERROR(ck::RemoveTree(tmp));
  return Status::Ok();
}

// Rank 0: a fresh temporary directory (a killed save may have left one behind).
Status MakeTemp(const std::string& tmp, const std::string& path, bool overwrite) {
  if (!overwrite && ck::Exists(path))
    return InvalidUsage(path + " already exists (set overwrite to replace it atomically)");
  WEFT_RETURN_IF_ERROR(ck::RemoveTree(tmp));
  WEFT_RETURN_IF_ERROR(ck::MakeDir(tmp));
  return ck::SyncDir(ck::ParentDir(tmp));
}

}  // namespace

Status Save(weft_context_t* ctx, const char* path, int32_t n, const char* const* names,
            const weft_layout_t* const* layouts, const DLTensor* const* tensors,
            const weft_checkpoint_save_options_t* opts, weft_work_t** work) {
  const int64_t timeout =
      opts != nullptr && opts->struct_size >= sizeof(*opts) ? opts->timeout_ms : 0;
  WEFT_ASSIGN_OR_RETURN(World w, WorldOf(ctx, timeout));
  std::vector<Item> items;
  const Status args = CheckArgs(w, path, n, names, layouts, tensors, opts, work, &items);
  uint64_t digest = 0;
  if (args.ok()) digest = Fnv(DigestOf(items), path, std::strlen(path));
  WEFT_RETURN_IF_ERROR(Agree(w, args, digest));
  const bool overwrite = opts != nullptr && opts->overwrite == 1;
  const std::string final_path = ck::StripSlashes(path), tmp = ck::TempDirFor(path);

  std::vector<std::vector<char>> buffers;
  WEFT_RETURN_IF_ERROR(Agree(w, ReducePartials(w, tensors, items, buffers)));
  WEFT_RETURN_IF_ERROR(Agree(w, w.rank == 0 ? MakeTemp(tmp, final_path, overwrite) : Status::Ok()));
  Result<Written> mine = WriteMine(w, tmp, items);
  WEFT_RETURN_IF_ERROR(Agree(w, mine.status()));
  const auto all = AllBoxes(items);
  WEFT_ASSIGN_OR_RETURN(auto gathered, Gather(w, items, all, *mine));
  Status commit;
  if (w.rank == 0) commit = Commit(tmp, final_path, overwrite, BuildIndex(w, items, all, gathered));
  return Agree(w, commit);
}

}  // namespace weft::api::ckpt
