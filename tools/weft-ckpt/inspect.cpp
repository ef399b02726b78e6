// inspect: tensors, their saved layouts and boxes, sizes; verify: every box's checksum and
// every file's safetensors header against the index.
#include <cstdio>
#include <map>
#include <vector>

#include "checkpoint/crc32c.hpp"
#include "checkpoint/fs.hpp"
#include "checkpoint/safetensors.hpp"
#include "tools/weft-ckpt/commands.hpp"

namespace weft::tools::ckpt {
namespace {

namespace ck = weft::checkpoint;

std::string Join(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

std::string Layout(const ck::IndexTensor& t) {
  std::string s = "mesh " + Join(t.mesh_shape, "x") + " [";
  for (size_t m = 0; m < t.placements.size(); ++m)
    s += (m ? "," : "") +
         (t.placements[m].kind == 1 ? "S" + std::to_string(t.placements[m].dim) : std::string("R"));
  return s + "]";
}

// The files' headers must list each box under its key at the index's offsets.
Status CheckHeaders(const std::string& dir, const ck::Index& index) {
  std::vector<std::map<std::string, std::pair<uint64_t, uint64_t>>> keys(index.files.size());
  for (size_t f = 0; f < index.files.size(); ++f) {
    WEFT_ASSIGN_OR_RETURN(ck::StFile st, ck::StReadHeader(dir + "/" + index.files[f]));
    for (const ck::StEntry& e : st.entries)
      keys[f][e.key] = {st.data_start + e.begin, e.end - e.begin};
  }
  for (const ck::IndexTensor& t : index.tensors)
    for (const ck::IndexBox& b : t.boxes) {
      const auto it = keys[b.file].find(b.key);
      if (it == keys[b.file].end() || it->second.first != b.byte_offset ||
          it->second.second != b.nbytes)
        return InvalidArgument("tensor " + t.name + ", box " + ck::BoxString(b.box) + ": " +
                               index.files[b.file] + "'s header does not list " + b.key +
                               " where the index says");
    }
  return Status::Ok();
}

}  // namespace

Result<ck::Index> OpenIndex(const std::string& dir) {
  const std::string where = ck::StripSlashes(dir) + "/" + ck::kIndexName;
  WEFT_ASSIGN_OR_RETURN(std::string text, ck::ReadWholeFile(where));
  return ck::IndexFromJson(text, where);
}

Status ReadBox(const std::string& dir, const ck::Index& index, const ck::IndexTensor& t,
               const ck::IndexBox& b, char* out) {
  const std::string what =
      "tensor " + t.name + ", box " + ck::BoxString(b.box) + " in " + index.files[b.file] + ": ";
  Result<ck::File> f = ck::File::Open(dir + "/" + index.files[b.file]);
  Status s = f.ok() ? f->ReadAt(out, b.nbytes, b.byte_offset) : f.status();
  if (s.ok() && ck::Crc32c(0, out, b.nbytes) != b.crc32c)
    s = Status(Code::kSystem, "crc32c mismatch (the file is corrupt)");
  return s.ok() ? s : Status(s.code(), what + s.message());
}

int Inspect(const std::string& dir, bool boxes) {
  auto index = OpenIndex(dir);
  if (!index.ok()) {
    std::fprintf(stderr, "weft-ckpt: %s\n", index.status().message().c_str());
    return 1;
  }
  std::printf("checkpoint %s: format %d, saved by %d ranks, %zu files, %zu tensors\n", dir.c_str(),
              index->version, index->world_size, index->files.size(), index->tensors.size());
  uint64_t total = 0;
  for (const ck::IndexTensor& t : index->tensors) {
    uint64_t bytes = 0;
    for (const ck::IndexBox& b : t.boxes) bytes += b.nbytes;
    total += bytes;
    std::printf("%s  %s [%s]  %s  %zu boxes  %llu bytes\n", t.name.c_str(),
                DTypeName(t.dtype).c_str(), Join(t.shape, ",").c_str(), Layout(t).c_str(),
                t.boxes.size(), static_cast<unsigned long long>(bytes));
    if (!boxes) continue;
    for (const ck::IndexBox& b : t.boxes)
      std::printf("    %s  %s @ %llu  %llu bytes  crc32c %08x\n", ck::BoxString(b.box).c_str(),
                  index->files[b.file].c_str(), static_cast<unsigned long long>(b.byte_offset),
                  static_cast<unsigned long long>(b.nbytes), b.crc32c);
  }
  std::printf("total %llu bytes\n", static_cast<unsigned long long>(total));
  return 0;
}

int Verify(const std::string& dir) {
  auto index = OpenIndex(dir);
  Status s = index.ok() ? CheckHeaders(dir, *index) : index.status();
  size_t checked = 0;
  std::vector<char> buf;
  for (size_t i = 0; s.ok() && i < index->tensors.size(); ++i)
    for (const ck::IndexBox& b : index->tensors[i].boxes) {
      buf.resize(b.nbytes);
      s = ReadBox(dir, *index, index->tensors[i], b, buf.data());
      if (!s.ok()) break;
      ++checked;
    }
  if (!s.ok()) {
    std::fprintf(stderr, "weft-ckpt: verify failed: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("ok: %zu boxes in %zu files verified\n", checked, index->files.size());
  return 0;
}

}  // namespace weft::tools::ckpt
