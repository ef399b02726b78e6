#include "api/src/checkpoint_write.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "checkpoint/crc32c.hpp"
#include "checkpoint/fs.hpp"
#include "placement/limits.hpp"

namespace weft::api::ckpt {
namespace {

namespace ck = weft::checkpoint;
namespace ex = placement::executor;

std::string KeyOf(const std::string& name, const Box& b) {
  std::string k = name + "@";
  for (int32_t d = 0; d < b.ndim; ++d) k += (d ? "," : "") + std::to_string(b.offset[d]);
  return k;
}

// Whether this rank writes item i's block.
bool Writes(const World& w, const Item& it, size_t i) {
  std::array<int64_t, placement::kMaxMeshDims> coord{};
  if (!it.layout->mesh().Coordinate(w.rank, coord.data())) return false;
  return !it.view.block.Empty() && ck::IsWriter(*it.layout, coord.data(), static_cast<int64_t>(i));
}

// The bytes of entry e: the tensor's memory when the block is contiguous there, else packed
// into `staging`.
Result<const char*> BytesOf(const ex::TensorView& v, size_t bytes, std::vector<char>& staging) {
  if (ex::IsContiguous(v, v.block)) return static_cast<const char*>(v.data);
  WEFT_ASSIGN_OR_RETURN(auto q, device::Queue::For(DLDevice{kDLCPU, 0}, nullptr));
  staging.resize(bytes);
  WEFT_RETURN_IF_ERROR(ex::Pack(q, v, v.block, staging.data()));
  return static_cast<const char*>(staging.data());
}

}  // namespace

std::string FileName(int32_t rank) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "rank-%05d.safetensors", rank);
  return buf;
}

Result<MyFile> PlanMine(const World& w, const std::vector<Item>& items) {
  MyFile mine;
  uint64_t at = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!Writes(w, items[i], i)) continue;
    const Box& b = items[i].view.block;
    const auto bytes = static_cast<uint64_t>(b.Volume() * items[i].view.item);
    mine.entries.push_back({KeyOf(items[i].name, b), items[i].layout->dtype(),
                            std::vector<int64_t>(b.shape.begin(), b.shape.begin() + b.ndim), at,
                            at + bytes});
    mine.items.push_back(i);
    at += bytes;
  }
  if (mine.entries.empty()) return mine;
  WEFT_ASSIGN_OR_RETURN(
      mine.header, ck::StHeader(mine.entries,
                                {{"format", "weft-checkpoint"}, {"rank", std::to_string(w.rank)}}));
  return mine;
}

Result<Written> WriteMine(const std::string& dir, const World& w, const std::vector<Item>& items,
                          const MyFile& mine) {
  Written out;
  if (mine.entries.empty()) return out;
  out.data_start = mine.header.size();
  WEFT_ASSIGN_OR_RETURN(ck::File f, ck::File::Create(dir + "/" + FileName(w.rank)));
  WEFT_RETURN_IF_ERROR(f.WriteAll(mine.header.data(), mine.header.size()));
  std::vector<char> staging;
  for (size_t e = 0; e < mine.entries.size(); ++e) {
    const size_t bytes = mine.entries[e].end - mine.entries[e].begin;
    WEFT_ASSIGN_OR_RETURN(const char* data, BytesOf(items[mine.items[e]].view, bytes, staging));
    out.crcs.push_back(ck::Crc32c(0, data, bytes));
    WEFT_RETURN_IF_ERROR(f.WriteAll(data, bytes));
  }
  WEFT_RETURN_IF_ERROR(f.Sync());
  return out;
}

Result<Written> PackMine(const std::vector<Item>& items, const MyFile& mine, char* data) {
  Written out;
  if (mine.entries.empty()) return out;
  out.data_start = mine.header.size();
  WEFT_ASSIGN_OR_RETURN(auto q, device::Queue::For(DLDevice{kDLCPU, 0}, nullptr));
  for (size_t e = 0; e < mine.entries.size(); ++e) {
    const ex::TensorView& v = items[mine.items[e]].view;
    char* at = data + mine.entries[e].begin;
    const size_t bytes = mine.entries[e].end - mine.entries[e].begin;
    if (ex::IsContiguous(v, v.block))
      std::memcpy(at, v.data, bytes);
    else
      WEFT_RETURN_IF_ERROR(ex::Pack(q, v, v.block, at));
    out.crcs.push_back(ck::Crc32c(0, at, bytes));
  }
  return out;
}

AllBoxes PlanAll(const std::vector<Item>& items) {
  AllBoxes all;
  for (size_t i = 0; i < items.size(); ++i)
    all.push_back(ck::PlanBoxes(*items[i].layout, static_cast<int64_t>(i)));
  return all;
}

Result<std::vector<uint64_t>> Gather(const World& w, const AllBoxes& all, const Written& mine,
                                     uint64_t token) {
  size_t total = 0;
  for (const auto& boxes : all) total += boxes.size();
  std::vector<uint64_t> v(total + static_cast<size_t>(w.size) + 1, 0);
  size_t slot = 0, k = 0;
  for (const auto& boxes : all)
    for (const ck::PlannedBox& pb : boxes) {
      if (pb.rank == w.rank) v[slot] = mine.crcs[k++];
      ++slot;
    }
  v[total + static_cast<size_t>(w.rank)] = mine.data_start;
  if (w.rank == 0) v.back() = token;
  WEFT_RETURN_IF_ERROR(SumAll(w, v));
  return v;
}

std::vector<int32_t> Writers(const AllBoxes& all) {
  std::set<int32_t> ranks;
  for (const auto& boxes : all)
    for (const ck::PlannedBox& pb : boxes) ranks.insert(pb.rank);
  return {ranks.begin(), ranks.end()};
}

ck::Index BuildIndex(const World& w, const std::vector<Item>& items, const AllBoxes& all,
                     const std::vector<uint64_t>& gathered) {
  ck::Index index;
  index.world_size = w.size;
  const size_t starts = gathered.size() - 1 - static_cast<size_t>(w.size);
  if (gathered.back() != 0) {
    char id[24];
    std::snprintf(id, sizeof(id), "%016llx", static_cast<unsigned long long>(gathered.back()));
    index.save_id = id;
  }
  std::map<int32_t, int32_t> file_of;  // writer rank -> file index, in rank order
  for (int32_t rank : Writers(all)) {
    file_of[rank] = static_cast<int32_t>(index.files.size());
    index.files.push_back(FileName(rank));
  }
  std::map<int32_t, uint64_t> next;  // writer rank -> next data offset (relative)
  size_t slot = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const placement::Layout& l = *items[i].layout;
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
      b.byte_offset = gathered[starts + static_cast<size_t>(pb.rank)] + next[pb.rank];
      next[pb.rank] += b.nbytes;
      b.crc32c = static_cast<uint32_t>(gathered[slot++]);
      t.boxes.push_back(std::move(b));
    }
    index.tensors.push_back(std::move(t));
  }
  return index;
}

Status MakeTemp(const std::string& tmp, const std::string& path, bool overwrite) {
  if (!overwrite && ck::Exists(path))
    return InvalidUsage(path + " already exists (set overwrite to replace it atomically)");
  WEFT_RETURN_IF_ERROR(ck::RemoveTree(tmp));
  WEFT_RETURN_IF_ERROR(ck::MakeDir(tmp));
  return ck::SyncDir(ck::ParentDir(tmp));
}

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

}  // namespace weft::api::ckpt
