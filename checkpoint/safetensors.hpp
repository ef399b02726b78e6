// The safetensors container (https://github.com/huggingface/safetensors): an 8-byte little
// endian header length, a JSON header mapping each tensor name to its dtype, shape and
// [begin, end) byte offsets in the data section, then the data. Weft writes one such file per
// writing rank and reads any (its own or a consolidated one).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/dtype.hpp"
#include "common/result.hpp"

namespace weft::checkpoint {

struct StEntry {
  std::string key;
  DType dtype;
  std::vector<int64_t> shape;   // Weft's shape; complex types gain a trailing 2 in the file
  uint64_t begin = 0, end = 0;  // in the data section
};

// The safetensors name of a dtype ("F32", "BF16", "BOOL"); complex64/128 are stored as pairs
// of F32/F64 (a trailing dim of 2), since safetensors has no complex type.
Result<std::string> StDTypeName(DType t);
// The reverse (a pair that stands for complex reads back as its float type).
Result<DType> StDTypeFromName(const std::string& name);

// The bytes before the data: length + JSON header, padded with spaces to a multiple of 8 so
// that the data section is aligned. Entries must be packed in order (begin of each = end of
// the previous, the first at 0), as the safetensors readers require.
Result<std::string> StHeader(const std::vector<StEntry>& entries,
                             const std::map<std::string, std::string>& metadata);

struct StFile {
  std::vector<StEntry> entries;  // in data order
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // absolute offset of the data section
};
// Parses the JSON header of a file whose data section starts at `data_start`; `where` names
// the file in errors. Entries come back sorted by offset.
Result<StFile> StParse(const std::string& header_json, uint64_t data_start,
                       const std::string& where);
// Reads and parses the header of the safetensors file at `path`.
Result<StFile> StReadHeader(const std::string& path);

}  // namespace weft::checkpoint
