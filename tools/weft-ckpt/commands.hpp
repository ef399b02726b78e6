// weft-ckpt's commands, one file each; all are local (no context, no communication).
#pragma once

#include <string>
#include <vector>

#include "checkpoint/index.hpp"
#include "common/result.hpp"

namespace weft::tools::ckpt {

// Loads and validates dir/index.json.
Result<checkpoint::Index> OpenIndex(const std::string& dir);
// Reads box b of tensor t whole (nbytes) and checks its crc32c.
Status ReadBox(const std::string& dir, const checkpoint::Index& index,
               const checkpoint::IndexTensor& t, const checkpoint::IndexBox& b, char* out);

int Inspect(const std::string& dir, bool boxes);
int Verify(const std::string& dir);
int Consolidate(const std::string& dir, const std::string& out);
// The placements apply to every tensor; a Shard of a dim a tensor lacks becomes Replicate.
int Split(const std::string& in, const std::string& dir, const std::vector<int64_t>& mesh,
          const std::vector<std::string>& placements);

}  // namespace weft::tools::ckpt
