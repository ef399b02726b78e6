// consolidate: one safetensors file holding every tensor whole, under its own name. Tensors
// are assembled one at a time (memory: the largest tensor), each box verified as it is read,
// and the file is written next to its final name, fsynced and renamed into place.
#include <cstdio>
#include <map>
#include <vector>

#include "checkpoint/fs.hpp"
#include "checkpoint/load_plan.hpp"
#include "checkpoint/safetensors.hpp"
#include "tools/weft-ckpt/commands.hpp"

namespace weft::tools::ckpt {
namespace {

namespace ck = weft::checkpoint;
using checkpoint::Box;

Box Whole(const ck::IndexTensor& t) {
  Box b;
  b.ndim = static_cast<int32_t>(t.shape.size());
  for (int32_t d = 0; d < b.ndim; ++d) b.shape[d] = t.shape[d];
  return b;
}

// Tensor t assembled whole, row-major, from its boxes.
Status Assemble(const std::string& dir, const ck::Index& index, const ck::IndexTensor& t,
                std::vector<char>& whole) {
  const int64_t item = ItemSize(t.dtype);
  whole.assign(static_cast<size_t>(Whole(t).Volume() * item), 0);
  std::vector<char> box;
  for (const ck::IndexBox& b : t.boxes) {
    box.resize(b.nbytes);
    WEFT_RETURN_IF_ERROR(ReadBox(dir, index, t, b, box.data()));
    // The box's row-major bytes land on these runs of the whole tensor, in order.
    const char* from = box.data();
    for (const ck::Run& r : ck::RunsOf(Whole(t), b.box, item, 0)) {
      std::copy(from, from + r.nbytes, whole.data() + r.offset);
      from += r.nbytes;
    }
  }
  return Status::Ok();
}

Status Run(const std::string& dir, const std::string& out) {
  WEFT_ASSIGN_OR_RETURN(ck::Index index, OpenIndex(dir));
  std::vector<ck::StEntry> entries;
  std::map<std::string, std::string> metadata = {{"format", "weft-consolidated"}};
  uint64_t at = 0;
  for (const ck::IndexTensor& t : index.tensors) {
    const auto bytes = static_cast<uint64_t>(Whole(t).Volume() * ItemSize(t.dtype));
    entries.push_back({t.name, t.dtype, t.shape, at, at + bytes});
    at += bytes;
    // Complex tensors are stored as float pairs; this lets split restore their dtype.
    if (t.dtype.code == kCodeComplex) metadata["dtype:" + t.name] = DTypeName(t.dtype);
  }
  WEFT_ASSIGN_OR_RETURN(std::string header, ck::StHeader(entries, metadata));
  const std::string tmp = out + ".weft-tmp";
  WEFT_ASSIGN_OR_RETURN(ck::File f, ck::File::Create(tmp));
  WEFT_RETURN_IF_ERROR(f.WriteAll(header.data(), header.size()));
  std::vector<char> whole;
  for (const ck::IndexTensor& t : index.tensors) {
    WEFT_RETURN_IF_ERROR(Assemble(dir, index, t, whole));
    WEFT_RETURN_IF_ERROR(f.WriteAll(whole.data(), whole.size()));
  }
  WEFT_RETURN_IF_ERROR(f.Sync());
  if (std::rename(tmp.c_str(), out.c_str()) != 0)
    return Status(Code::kSystem, "cannot rename " + tmp + " to " + out);
  return ck::SyncDir(ck::ParentDir(out));
}

}  // namespace

int Consolidate(const std::string& dir, const std::string& out) {
  const Status s = Run(dir, out);
  if (!s.ok()) {
    std::fprintf(stderr, "weft-ckpt: consolidate failed: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

}  // namespace weft::tools::ckpt
