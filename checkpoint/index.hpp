// A checkpoint's index (index.json): per tensor its dtype, global shape, the layout it was
// saved in, and its boxes (global offset and shape) with the file, byte offset and crc32c of
// each. Every box is one cell of the saved layout's grid (the pieces of each tensor dim), so
// the boxes that meet a block are found by binary search on each dim, without scanning.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/dtype.hpp"
#include "common/result.hpp"
#include "placement/planner/box.hpp"

namespace weft::checkpoint {

using placement::planner::Box;

inline constexpr const char* kIndexName = "index.json";
inline constexpr int32_t kFormatVersion = 1;

struct IndexBox {
  Box box;                   // global offset and shape
  int32_t file = 0;          // into Index::files
  uint64_t byte_offset = 0;  // absolute, in that file
  uint64_t nbytes = 0;
  uint32_t crc32c = 0;
  std::string key;  // the safetensors name of the box in its file
};

struct SavedPlacement {
  int32_t kind = 0;  // WEFT_REPLICATE or WEFT_SHARD (Partial is reduced before saving)
  int32_t dim = 0;
};

struct IndexTensor {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> mesh_shape;
  std::vector<SavedPlacement> placements;
  std::vector<std::vector<int64_t>> pieces;  // per tensor dim, the sizes of its pieces
  std::vector<IndexBox> boxes;

  // Filled by Finish: per dim the start of each piece (pieces[d].size() + 1 entries) and, per
  // grid cell (row-major), the box that holds it (-1: an empty cell).
  std::vector<std::vector<int64_t>> cuts;
  std::vector<int64_t> cell_box;
};

struct Index {
  int32_t version = kFormatVersion;
  int32_t world_size = 0;
  std::string save_id;  // set by asynchronous saves, which ranks poll for (may be empty)
  std::vector<std::string> files;
  std::vector<IndexTensor> tensors;
  std::unordered_map<std::string, size_t> by_name;
};

// Checks a tensor's boxes against its grid (each box exactly one non-empty cell, every
// non-empty cell covered once) and builds the lookup. `where` names the index in errors.
Status Finish(IndexTensor& t, const std::string& where);

std::string IndexToJson(const Index& index);
Result<Index> IndexFromJson(const std::string& text, const std::string& where);

// The boxes of `t` that intersect `block`, in row-major cell order.
std::vector<int64_t> BoxesTouching(const IndexTensor& t, const Box& block);

// "[0:4, 2:6]": a box in errors and listings.
std::string BoxString(const Box& b);

}  // namespace weft::checkpoint
