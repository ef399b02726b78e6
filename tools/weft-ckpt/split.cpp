// split: a consolidated safetensors file (any safetensors file) into a Weft checkpoint as if
// saved by the ranks of a mesh in the given placements: the same writers, files and index a
// save would produce, so the result loads into any layout. Each box is read straight from its
// byte runs in the input. Written into a temporary directory and renamed into place.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "checkpoint/crc32c.hpp"
#include "checkpoint/fs.hpp"
#include "checkpoint/load_plan.hpp"
#include "checkpoint/safetensors.hpp"
#include "checkpoint/save_plan.hpp"
#include "placement/layout.hpp"
#include "tools/weft-ckpt/commands.hpp"

namespace weft::tools::ckpt {
namespace {

namespace ck = weft::checkpoint;
using checkpoint::Box;
namespace pl = weft::placement;

Result<pl::LayoutPtr> LayoutFor(const pl::MeshPtr& mesh, const ck::StEntry& e,
                                const std::vector<std::string>& placements) {
  pl::Layout::Spec spec;
  spec.mesh = mesh;
  spec.shape = e.shape;
  spec.dtype = e.dtype;
  for (const std::string& p : placements) {
    const int dim = p.size() > 1 && p[0] == 'S' ? std::atoi(p.c_str() + 1) : -1;
    if (p != "R" && (dim < 0 || p != "S" + std::to_string(dim)))
      return InvalidArgument("placement " + p + " is not R or S<dim>");
    if (dim >= 0 && dim < static_cast<int>(e.shape.size()))
      spec.placements.push_back(pl::Shard{dim});
    else
      spec.placements.push_back(pl::Replicate{});
  }
  return pl::Layout::Create(std::move(spec));
}

struct Ref {  // box k of tensor i
  size_t tensor;
  size_t box;
};

// The bytes of a box, read from its runs in the input's whole tensor.
Status ReadFromWhole(const ck::File& input, const ck::StFile& src, size_t entry, const Box& box,
                     char* to) {
  const ck::StEntry& e = src.entries[entry];
  Box whole;
  whole.ndim = static_cast<int32_t>(e.shape.size());
  for (int32_t d = 0; d < whole.ndim; ++d) whole.shape[d] = e.shape[d];
  for (const ck::Run& r : ck::RunsOf(whole, box, ItemSize(e.dtype), src.data_start + e.begin)) {
    WEFT_RETURN_IF_ERROR(input.ReadAt(to, r.nbytes, r.offset));
    to += r.nbytes;
  }
  return Status::Ok();
}

// Writes one rank's file and fills in its boxes' file, key, offset and checksum.
Status WriteRank(const ck::File& input, const ck::StFile& src, int32_t rank,
                 const std::vector<Ref>& refs, const std::string& tmp, ck::Index& index) {
  std::vector<ck::StEntry> entries;
  uint64_t at = 0;
  for (const Ref& r : refs) {
    ck::IndexBox& b = index.tensors[r.tensor].boxes[r.box];
    std::string key = index.tensors[r.tensor].name + "@";
    for (int32_t d = 0; d < b.box.ndim; ++d)
      key += (d ? "," : "") + std::to_string(b.box.offset[d]);
    b.key = key;
    entries.push_back({key, index.tensors[r.tensor].dtype,
                       std::vector<int64_t>(b.box.shape.begin(), b.box.shape.begin() + b.box.ndim),
                       at, at + b.nbytes});
    at += b.nbytes;
  }
  WEFT_ASSIGN_OR_RETURN(
      std::string header,
      ck::StHeader(entries, {{"format", "weft-checkpoint"}, {"rank", std::to_string(rank)}}));
  char name[40];
  std::snprintf(name, sizeof(name), "rank-%05d.safetensors", rank);
  const auto file = static_cast<int32_t>(index.files.size());
  index.files.push_back(name);
  WEFT_ASSIGN_OR_RETURN(ck::File out, ck::File::Create(tmp + "/" + name));
  WEFT_RETURN_IF_ERROR(out.WriteAll(header.data(), header.size()));
  std::vector<char> buf;
  for (size_t k = 0; k < refs.size(); ++k) {
    ck::IndexBox& b = index.tensors[refs[k].tensor].boxes[refs[k].box];
    buf.resize(b.nbytes);
    WEFT_RETURN_IF_ERROR(ReadFromWhole(input, src, refs[k].tensor, b.box, buf.data()));
    WEFT_RETURN_IF_ERROR(out.WriteAll(buf.data(), buf.size()));
    b.file = file;
    b.byte_offset = header.size() + entries[k].begin;
    b.crc32c = ck::Crc32c(0, buf.data(), buf.size());
  }
  return out.Sync();
}

// The index's tensors and boxes (files and checksums filled in later), and who writes what.
Status PlanSplit(const ck::StFile& src, const pl::MeshPtr& mesh,
                 const std::vector<std::string>& placements, ck::Index& index,
                 std::map<int32_t, std::vector<Ref>>& per_rank) {
  for (size_t i = 0; i < src.entries.size(); ++i) {
    const ck::StEntry& e = src.entries[i];
    WEFT_ASSIGN_OR_RETURN(pl::LayoutPtr l, LayoutFor(mesh, e, placements));
    ck::IndexTensor t{e.key, e.dtype, e.shape, mesh->shape(), {}, ck::Pieces(*l)};
    for (const auto& p : l->placements())
      t.placements.push_back(pl::IsShard(p) ? ck::SavedPlacement{1, std::get<pl::Shard>(p).dim}
                                            : ck::SavedPlacement{0, 0});
    for (const ck::PlannedBox& pb : ck::PlanBoxes(*l, static_cast<int64_t>(i))) {
      per_rank[pb.rank].push_back({i, t.boxes.size()});
      ck::IndexBox b;
      b.box = pb.box;
      b.nbytes = static_cast<uint64_t>(pb.box.Volume() * ItemSize(e.dtype));
      t.boxes.push_back(b);
    }
    index.tensors.push_back(std::move(t));
  }
  return Status::Ok();
}

// Float pairs that consolidate marked as complex become complex again.
void RestoreComplex(ck::StFile& src) {
  for (ck::StEntry& e : src.entries) {
    const auto it = src.metadata.find("dtype:" + e.key);
    if (it == src.metadata.end() || e.shape.empty() || e.shape.back() != 2) continue;
    if (it->second == "complex64" && e.dtype == DType{kCodeFloat, 32, 1}) {
      e.dtype = DType{kCodeComplex, 64, 1};
    } else if (it->second == "complex128" && e.dtype == DType{kCodeFloat, 64, 1}) {
      e.dtype = DType{kCodeComplex, 128, 1};
    } else {
      continue;
    }
    e.shape.pop_back();
  }
}

Status Run(const std::string& in, const std::string& dir, const std::vector<int64_t>& mesh_shape,
           const std::vector<std::string>& placements) {
  WEFT_ASSIGN_OR_RETURN(ck::StFile src, ck::StReadHeader(in));
  RestoreComplex(src);
  WEFT_ASSIGN_OR_RETURN(ck::File input, ck::File::Open(in));
  pl::Mesh::Spec ms;
  ms.shape = mesh_shape;
  WEFT_ASSIGN_OR_RETURN(pl::MeshPtr mesh, pl::Mesh::Create(std::move(ms)));
  ck::Index index;
  index.world_size = static_cast<int32_t>(mesh->size());
  std::map<int32_t, std::vector<Ref>> per_rank;
  WEFT_RETURN_IF_ERROR(PlanSplit(src, mesh, placements, index, per_rank));
  const std::string final_dir = ck::StripSlashes(dir), tmp = ck::TempDirFor(dir);
  if (ck::Exists(final_dir)) return InvalidUsage(final_dir + " already exists");
  WEFT_RETURN_IF_ERROR(ck::RemoveTree(tmp));
  WEFT_RETURN_IF_ERROR(ck::MakeDir(tmp));
  for (const auto& [rank, refs] : per_rank)
    WEFT_RETURN_IF_ERROR(WriteRank(input, src, rank, refs, tmp, index));
  for (ck::IndexTensor& t : index.tensors) WEFT_RETURN_IF_ERROR(ck::Finish(t, "the new index"));
  WEFT_RETURN_IF_ERROR(ck::WriteWholeFile(tmp + "/" + ck::kIndexName, ck::IndexToJson(index)));
  WEFT_RETURN_IF_ERROR(ck::SyncDir(tmp));
  WEFT_RETURN_IF_ERROR(ck::PublishDir(tmp, final_dir, false));
  return ck::SyncDir(ck::ParentDir(final_dir));
}

}  // namespace

int Split(const std::string& in, const std::string& dir, const std::vector<int64_t>& mesh,
          const std::vector<std::string>& placements) {
  const Status s = Run(in, dir, mesh, placements);
  if (!s.ok()) {
    std::fprintf(stderr, "weft-ckpt: split failed: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("wrote %s\n", dir.c_str());
  return 0;
}

}  // namespace weft::tools::ckpt
