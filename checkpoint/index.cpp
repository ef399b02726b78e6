#include "checkpoint/index.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "placement/limits.hpp"

namespace weft::checkpoint {
namespace {

using nlohmann::json;

// A malformed index must not make us allocate without bound: a grid has at most one cell per
// block of the saved mesh, and no mesh is this large.
constexpr int64_t kMaxCells = int64_t{1} << 28;

Result<DType> DTypeFromName(const std::string& name) {
  for (uint8_t code = 0; code <= kCodeBool; ++code)
    for (uint8_t bits : {8, 16, 32, 64, 128}) {
      const DType t{code, bits, 1};
      if (DTypeName(t) == name) return t;
    }
  return InvalidArgument("unknown dtype " + name);
}

// The piece of dim d that is exactly [offset, offset + size), or -1.
int64_t PieceOf(const IndexTensor& t, int32_t d, int64_t offset, int64_t size) {
  const auto& cuts = t.cuts[d];
  const auto np = static_cast<int64_t>(t.pieces[d].size());
  auto it = std::lower_bound(cuts.begin(), cuts.begin() + np, offset);
  for (int64_t p = it - cuts.begin(); p < np && cuts[p] == offset; ++p)
    if (t.pieces[d][p] == size) return p;
  return -1;
}

json TensorJson(const IndexTensor& t) {
  json places = json::array();
  for (const SavedPlacement& p : t.placements)
    places.push_back(p.kind == 1 ? "S" + std::to_string(p.dim) : std::string("R"));
  json boxes = json::array();
  for (const IndexBox& b : t.boxes)
    boxes.push_back(
        {{"offset", std::vector<int64_t>(b.box.offset.begin(), b.box.offset.begin() + b.box.ndim)},
         {"shape", std::vector<int64_t>(b.box.shape.begin(), b.box.shape.begin() + b.box.ndim)},
         {"file", b.file},
         {"key", b.key},
         {"byte_offset", b.byte_offset},
         {"nbytes", b.nbytes},
         {"crc32c", b.crc32c}});
  return {{"name", t.name},
          {"dtype", DTypeName(t.dtype)},
          {"shape", t.shape},
          {"layout", {{"mesh_shape", t.mesh_shape}, {"placements", places}, {"pieces", t.pieces}}},
          {"boxes", boxes}};
}

Result<std::vector<int64_t>> Ints(const json& v, const std::string& what) {
  if (!v.is_array()) return InvalidArgument(what + " is not an array");
  std::vector<int64_t> out;
  for (const auto& x : v) {
    if (!x.is_number_integer() || x.get<int64_t>() < 0)
      return InvalidArgument(what + " holds a value that is not a non-negative integer");
    out.push_back(x.get<int64_t>());
  }
  return out;
}

Result<IndexBox> BoxFromJson(const json& b, size_t ndim, size_t nfiles, const std::string& what) {
  IndexBox box;
  WEFT_ASSIGN_OR_RETURN(auto off, Ints(b.value("offset", json()), what + ".offset"));
  WEFT_ASSIGN_OR_RETURN(auto shape, Ints(b.value("shape", json()), what + ".shape"));
  if (off.size() != ndim || shape.size() != ndim)
    return InvalidArgument(what + " does not have the tensor's number of dims");
  box.box.ndim = static_cast<int32_t>(ndim);
  std::copy(off.begin(), off.end(), box.box.offset.begin());
  std::copy(shape.begin(), shape.end(), box.box.shape.begin());
  const bool ok = b.value("file", json()).is_number_unsigned() &&
                  b.value("byte_offset", json()).is_number_unsigned() &&
                  b.value("nbytes", json()).is_number_unsigned() &&
                  b.value("crc32c", json()).is_number_unsigned() &&
                  b.value("key", json()).is_string();
  if (!ok) return InvalidArgument(what + " lacks file/key/byte_offset/nbytes/crc32c");
  box.file = b["file"].get<int32_t>();
  if (static_cast<size_t>(box.file) >= nfiles)
    return InvalidArgument(what + " names file " + std::to_string(box.file) + " of " +
                           std::to_string(nfiles));
  box.key = b["key"].get<std::string>();
  box.byte_offset = b["byte_offset"].get<uint64_t>();
  box.nbytes = b["nbytes"].get<uint64_t>();
  box.crc32c = b["crc32c"].get<uint32_t>();
  return box;
}

Result<IndexTensor> TensorFromJson(const json& j, size_t nfiles, const std::string& where) {
  IndexTensor t;
  if (!j.is_object() || !j.value("name", json()).is_string())
    return InvalidArgument(where + ": a tensor entry has no name");
  t.name = j["name"].get<std::string>();
  const std::string what = where + ": tensor " + t.name;
  if (!j.value("dtype", json()).is_string()) return InvalidArgument(what + " has no dtype");
  WEFT_ASSIGN_OR_RETURN(t.dtype, DTypeFromName(j["dtype"].get<std::string>()));
  WEFT_ASSIGN_OR_RETURN(t.shape, Ints(j.value("shape", json()), what + " shape"));
  if (t.shape.size() > static_cast<size_t>(placement::kMaxTensorDims))
    return InvalidArgument(what + " has too many dims");
  const json& l = j.value("layout", json::object());
  WEFT_ASSIGN_OR_RETURN(t.mesh_shape, Ints(l.value("mesh_shape", json()), what + " mesh_shape"));
  for (const auto& p : l.value("placements", json::array())) {
    const std::string s = p.is_string() ? p.get<std::string>() : "";
    if (s == "R") {
      t.placements.push_back({0, 0});
    } else if (s.size() > 1 && s[0] == 'S' && std::all_of(s.begin() + 1, s.end(), ::isdigit)) {
      t.placements.push_back({1, std::stoi(s.substr(1))});
    } else {
      return InvalidArgument(what + " has a bad placement");
    }
  }
  const json& pieces = l.value("pieces", json());
  if (!pieces.is_array() || pieces.size() != t.shape.size())
    return InvalidArgument(what + " lacks the pieces of each dim");
  for (size_t d = 0; d < pieces.size(); ++d) {
    WEFT_ASSIGN_OR_RETURN(auto p, Ints(pieces[d], what + " pieces"));
    t.pieces.push_back(std::move(p));
  }
  const json& boxes = j.value("boxes", json());
  if (!boxes.is_array()) return InvalidArgument(what + " has no boxes");
  for (size_t i = 0; i < boxes.size(); ++i) {
    WEFT_ASSIGN_OR_RETURN(IndexBox b, BoxFromJson(boxes[i], t.shape.size(), nfiles,
                                                  what + " box " + std::to_string(i)));
    t.boxes.push_back(std::move(b));
  }
  WEFT_RETURN_IF_ERROR(Finish(t, where));
  return t;
}

}  // namespace

std::string BoxString(const Box& b) {
  std::string s = "[";
  for (int32_t d = 0; d < b.ndim; ++d) {
    if (d > 0) s += ", ";
    s += std::to_string(b.offset[d]) + ":" + std::to_string(b.offset[d] + b.shape[d]);
  }
  return s + "]";
}

Status Finish(IndexTensor& t, const std::string& where) {
  const std::string what = where + ": tensor " + t.name;
  const size_t ndim = t.shape.size();
  if (t.pieces.size() != ndim) return InvalidArgument(what + " lacks the pieces of each dim");
  t.cuts.assign(ndim, {});
  int64_t cells = 1, nonempty = 1;
  for (size_t d = 0; d < ndim; ++d) {
    int64_t at = 0, full = 0;
    t.cuts[d].push_back(0);
    for (int64_t p : t.pieces[d]) {
      at += p;
      full += p > 0 ? 1 : 0;
      t.cuts[d].push_back(at);
    }
    if (at != t.shape[d] || t.pieces[d].empty())
      return InvalidArgument(what + ": the pieces of dim " + std::to_string(d) +
                             " do not sum to its extent " + std::to_string(t.shape[d]));
    cells *= static_cast<int64_t>(t.pieces[d].size());
    nonempty *= full;
    if (cells > kMaxCells) return InvalidArgument(what + " has an implausibly fine grid");
  }
  t.cell_box.assign(static_cast<size_t>(cells), -1);
  const int64_t item = ItemSize(t.dtype);
  for (size_t i = 0; i < t.boxes.size(); ++i) {
    const IndexBox& b = t.boxes[i];
    const std::string bw = what + " box " + BoxString(b.box);
    if (b.box.Empty()) return InvalidArgument(bw + " is empty");
    if (b.nbytes != static_cast<uint64_t>(b.box.Volume() * item))
      return InvalidArgument(bw + " has " + std::to_string(b.nbytes) + " bytes, not " +
                             std::to_string(b.box.Volume() * item));
    int64_t cell = 0;
    for (size_t d = 0; d < ndim; ++d) {
      const int64_t p = PieceOf(t, static_cast<int32_t>(d), b.box.offset[d], b.box.shape[d]);
      if (p < 0) return InvalidArgument(bw + " is not a piece of the saved layout");
      cell = cell * static_cast<int64_t>(t.pieces[d].size()) + p;
    }
    if (t.cell_box[cell] >= 0) return InvalidArgument(bw + " appears twice");
    t.cell_box[cell] = static_cast<int64_t>(i);
  }
  if (static_cast<int64_t>(t.boxes.size()) != nonempty)
    return InvalidArgument(what + " has " + std::to_string(t.boxes.size()) +
                           " boxes but its layout has " + std::to_string(nonempty) +
                           " non-empty pieces: some data is missing");
  return Status::Ok();
}

namespace {
Result<Index> ParseIndex(const std::string& text, const std::string& where);
}  // namespace

std::string IndexToJson(const Index& index) {
  json tensors = json::array();
  for (const IndexTensor& t : index.tensors) tensors.push_back(TensorJson(t));
  json j = {{"format", "weft-checkpoint"},
            {"version", index.version},
            {"world_size", index.world_size},
            {"files", index.files},
            {"tensors", tensors}};
  if (!index.save_id.empty()) j["save_id"] = index.save_id;
  return j.dump(1) + "\n";
}

Result<Index> IndexFromJson(const std::string& text, const std::string& where) {
  // Every field is type-checked before use; a mistyped one that slips through throws, and
  // becomes the same error rather than an "unexpected exception".
  try {
    return ParseIndex(text, where);
  } catch (const json::exception& e) {
    return InvalidArgument(where + " is malformed: " + e.what());
  }
}

namespace {

Result<Index> ParseIndex(const std::string& text, const std::string& where) {
  const json j = json::parse(text, nullptr, false);
  const bool ok = !j.is_discarded() && j.is_object() && j.contains("format") &&
                  j["format"].is_string() && j["format"].get<std::string>() == "weft-checkpoint";
  if (!ok) return InvalidArgument(where + " is not a Weft checkpoint index (bad JSON or format)");
  Index index;
  index.version = j.value("version", 0);
  if (index.version != kFormatVersion)
    return Status(Code::kVersionMismatch, where + " has format version " +
                                              std::to_string(index.version) + ", this Weft reads " +
                                              std::to_string(kFormatVersion));
  index.world_size = j.value("world_size", 0);
  if (j.contains("save_id") && j["save_id"].is_string()) index.save_id = j["save_id"];
  for (const auto& f : j.value("files", json::array())) {
    if (!f.is_string() || f.get<std::string>().find('/') != std::string::npos)
      return InvalidArgument(where + ": a file name is not a plain name");
    index.files.push_back(f.get<std::string>());
  }
  for (const auto& tj : j.value("tensors", json::array())) {
    WEFT_ASSIGN_OR_RETURN(IndexTensor t, TensorFromJson(tj, index.files.size(), where));
    if (!index.by_name.emplace(t.name, index.tensors.size()).second)
      return InvalidArgument(where + ": tensor " + t.name + " appears twice");
    index.tensors.push_back(std::move(t));
  }
  return index;
}

}  // namespace

std::vector<int64_t> BoxesTouching(const IndexTensor& t, const Box& block) {
  std::vector<int64_t> out;
  if (block.Empty()) return out;
  const int32_t nd = block.ndim;
  std::array<int64_t, placement::kMaxTensorDims> lo{}, hi{}, at{};
  for (int32_t d = 0; d < nd; ++d) {
    const auto& c = t.cuts[d];
    lo[d] = std::upper_bound(c.begin(), c.end(), block.offset[d]) - c.begin() - 1;
    hi[d] = std::upper_bound(c.begin(), c.end(), block.offset[d] + block.shape[d] - 1) - c.begin();
    at[d] = lo[d];
  }
  while (true) {
    int64_t cell = 0;
    for (int32_t d = 0; d < nd; ++d) cell = cell * static_cast<int64_t>(t.pieces[d].size()) + at[d];
    if (t.cell_box[cell] >= 0) out.push_back(t.cell_box[cell]);
    int32_t d = nd - 1;
    for (; d >= 0; --d) {
      if (++at[d] < hi[d]) break;
      at[d] = lo[d];
    }
    if (d < 0) break;
  }
  return out;
}

}  // namespace weft::checkpoint
