#include "checkpoint/safetensors.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "checkpoint/fs.hpp"

namespace weft::checkpoint {
namespace {

using nlohmann::json;

// safetensors refuses headers above 100 MB; so do we, before allocating.
constexpr uint64_t kMaxHeader = 100u << 20;

struct Name {
  DType t;
  const char* name;
};
constexpr Name kNames[] = {
    {{kCodeBool, 8, 1}, "BOOL"},    {{kCodeUInt, 8, 1}, "U8"},    {{kCodeInt, 8, 1}, "I8"},
    {{kCodeInt, 16, 1}, "I16"},     {{kCodeUInt, 16, 1}, "U16"},  {{kCodeFloat, 16, 1}, "F16"},
    {{kCodeBfloat, 16, 1}, "BF16"}, {{kCodeInt, 32, 1}, "I32"},   {{kCodeUInt, 32, 1}, "U32"},
    {{kCodeFloat, 32, 1}, "F32"},   {{kCodeFloat, 64, 1}, "F64"}, {{kCodeInt, 64, 1}, "I64"},
    {{kCodeUInt, 64, 1}, "U64"},
};

// The dtype a file holds for `t`, and whether shapes gain a trailing 2.
Result<std::pair<DType, bool>> FileDType(DType t) {
  if (t.code == kCodeComplex && t.lanes == 1 && (t.bits == 64 || t.bits == 128))
    return std::make_pair(DType{kCodeFloat, static_cast<uint8_t>(t.bits / 2), 1}, true);
  return std::make_pair(t, false);
}

}  // namespace

Result<std::string> StDTypeName(DType t) {
  WEFT_ASSIGN_OR_RETURN(auto fd, FileDType(t));
  for (const Name& n : kNames)
    if (n.t == fd.first) return std::string(n.name);
  return Unsupported("dtype " + DTypeName(t) + " has no safetensors equivalent");
}

Result<DType> StDTypeFromName(const std::string& name) {
  for (const Name& n : kNames)
    if (name == n.name) return n.t;
  return Unsupported("safetensors dtype " + name + " is not supported by Weft");
}

Result<std::string> StHeader(const std::vector<StEntry>& entries,
                             const std::map<std::string, std::string>& metadata) {
  json h = json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  uint64_t at = 0;
  for (const StEntry& e : entries) {
    if (e.begin != at || e.end < e.begin)
      return Internal("safetensors entry " + e.key + " is not packed");
    at = e.end;
    WEFT_ASSIGN_OR_RETURN(auto fd, FileDType(e.dtype));
    WEFT_ASSIGN_OR_RETURN(std::string dt, StDTypeName(e.dtype));
    std::vector<int64_t> shape = e.shape;
    if (fd.second) shape.push_back(2);
    h[e.key] = {{"dtype", dt}, {"shape", shape}, {"data_offsets", {e.begin, e.end}}};
  }
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + text;
}

namespace {

Result<StFile> Parse(const std::string& header_json, uint64_t data_start,
                     const std::string& where) {
  const json h = json::parse(header_json, nullptr, false);
  if (h.is_discarded() || !h.is_object())
    return InvalidArgument(where + ": the safetensors header is not a JSON object");
  StFile f;
  f.data_start = data_start;
  for (const auto& [key, v] : h.items()) {
    if (key == "__metadata__") {
      if (!v.is_object()) return InvalidArgument(where + ": __metadata__ is not an object");
      for (const auto& [mk, mv] : v.items())
        if (mv.is_string()) f.metadata[mk] = mv.get<std::string>();
      continue;
    }
    const bool ok = v.is_object() && v.contains("dtype") && v["dtype"].is_string() &&
                    v.contains("shape") && v["shape"].is_array() && v.contains("data_offsets") &&
                    v["data_offsets"].is_array() && v["data_offsets"].size() == 2;
    if (!ok) return InvalidArgument(where + ": tensor " + key + " lacks dtype/shape/offsets");
    StEntry e;
    e.key = key;
    WEFT_ASSIGN_OR_RETURN(e.dtype, StDTypeFromName(v["dtype"].get<std::string>()));
    for (const auto& s : v["shape"]) {
      if (!s.is_number_integer() || s.get<int64_t>() < 0)
        return InvalidArgument(where + ": tensor " + key + " has a bad shape");
      e.shape.push_back(s.get<int64_t>());
    }
    if (!v["data_offsets"][0].is_number_unsigned() || !v["data_offsets"][1].is_number_unsigned())
      return InvalidArgument(where + ": tensor " + key + " has bad data_offsets");
    e.begin = v["data_offsets"][0].get<uint64_t>();
    e.end = v["data_offsets"][1].get<uint64_t>();
    if (e.end < e.begin)
      return InvalidArgument(where + ": tensor " + key + " ends before it begins");
    f.entries.push_back(std::move(e));
  }
  std::sort(f.entries.begin(), f.entries.end(),
            [](const StEntry& a, const StEntry& b) { return a.begin < b.begin; });
  return f;
}

}  // namespace

Result<StFile> StParse(const std::string& header_json, uint64_t data_start,
                       const std::string& where) {
  try {
    return Parse(header_json, data_start, where);
  } catch (const json::exception& e) {
    return InvalidArgument(where + ": malformed safetensors header: " + e.what());
  }
}

Result<StFile> StReadHeader(const std::string& path) {
  WEFT_ASSIGN_OR_RETURN(File f, File::Open(path));
  unsigned char len[8];
  WEFT_RETURN_IF_ERROR(f.ReadAt(len, 8, 0));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > kMaxHeader)
    return InvalidArgument(path + ": safetensors header length " + std::to_string(n) +
                           " is implausible (not a safetensors file?)");
  std::string text(n, '\0');
  WEFT_RETURN_IF_ERROR(f.ReadAt(text.data(), n, 8));
  return StParse(text, 8 + n, path);
}

}  // namespace weft::checkpoint
