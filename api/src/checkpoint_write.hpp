// The steps of a checkpoint save after its arguments are agreed, shared by the blocking save
// and the asynchronous one: what this rank writes, writing it, gathering every box's checksum,
// and (rank 0) building the index and publishing the directory.
#pragma once

#include <string>
#include <vector>

#include "api/src/checkpoint_common.hpp"
#include "checkpoint/index.hpp"
#include "checkpoint/safetensors.hpp"
#include "checkpoint/save_plan.hpp"

namespace weft::api::ckpt {

std::string FileName(int32_t rank);

// This rank's file: its entries (one per box it writes, in item order), the items they come
// from, and the file's header. No entries: the rank writes no file.
struct MyFile {
  std::vector<checkpoint::StEntry> entries;
  std::vector<size_t> items;
  std::string header;
  uint64_t data_bytes() const { return entries.empty() ? 0 : entries.back().end; }
};
Result<MyFile> PlanMine(const World& w, const std::vector<Item>& items);

struct Written {
  uint64_t data_start = 0;     // the header's size
  std::vector<uint32_t> crcs;  // per entry
};
// Writes and fsyncs this rank's file into `dir` straight from the tensors.
Result<Written> WriteMine(const std::string& dir, const World& w, const std::vector<Item>& items,
                          const MyFile& mine);
// Packs this rank's boxes into `data` (mine.data_bytes() bytes), computing their checksums.
Result<Written> PackMine(const std::vector<Item>& items, const MyFile& mine, char* data);

using AllBoxes = std::vector<std::vector<checkpoint::PlannedBox>>;
// Every box of the save in a fixed order (item, then mesh order), the same on every rank.
AllBoxes PlanAll(const std::vector<Item>& items);

// One sum over the world: every box's crc32c, every file's data start, and rank 0's `token`
// (the asynchronous save's identity). Returns the gathered vector.
Result<std::vector<uint64_t>> Gather(const World& w, const AllBoxes& all, const Written& mine,
                                     uint64_t token);
// Rank 0: the index from the gathered values (the token becomes index.save_id when non-zero).
checkpoint::Index BuildIndex(const World& w, const std::vector<Item>& items, const AllBoxes& all,
                             const std::vector<uint64_t>& gathered);
// The ranks that write a file, ascending.
std::vector<int32_t> Writers(const AllBoxes& all);

// Rank 0: a fresh temporary directory (a killed save may have left one behind).
Status MakeTemp(const std::string& tmp, const std::string& path, bool overwrite);
// Rank 0: writes the index, fsyncs, and renames tmp to path (atomically).
Status Commit(const std::string& tmp, const std::string& path, bool overwrite,
              checkpoint::Index index);

}  // namespace weft::api::ckpt
