// A communicator: a group of world ranks meeting under a store prefix, with an id that keeps
// its messages apart from every other communicator's on the same worker.
//
// UCX tag (64 bits, matched with a full mask, no wildcards):
//   bits 63..48  communicator id (16 bits, agreed through the store, never 0 for groups > 1)
//   bits 47..32  the sender's group index (16 bits: groups of at most 65536 members)
//   bits 31..0   the op's tag: user tags 0..2^31-1 as they are; the host's internal tags
//                (kInternalTagBase = 2^40 plus 0..2^20-1, see backends/host/communicator.hpp)
//                as 2^31 | (tag - 2^40). Anything else is rejected.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/ucx/state.hpp"

namespace weft::backends::ucx_plugin {

inline constexpr int kSourceShift = 32;
inline constexpr int kCommShift = 48;
inline constexpr int32_t kMaxMembers = 1 << 16;
inline constexpr int64_t kUserTagLimit = int64_t{1} << 31;
inline constexpr int64_t kHostInternalTagBase = int64_t{1} << 40;

// The low 32 bits for a weft tag, or false when the tag has no encoding.
inline bool EncodeTag(int64_t tag, uint32_t* out) {
  if (tag >= 0 && tag < kUserTagLimit) {
    *out = static_cast<uint32_t>(tag);
    return true;
  }
  if (tag >= kHostInternalTagBase && tag - kHostInternalTagBase < kUserTagLimit) {
    *out = static_cast<uint32_t>(kUserTagLimit | (tag - kHostInternalTagBase));
    return true;
  }
  return false;
}

inline uint64_t WireTag(uint16_t comm_id, int32_t source_index, uint32_t tag) {
  return (uint64_t{comm_id} << kCommShift) |
         (static_cast<uint64_t>(static_cast<uint16_t>(source_index)) << kSourceShift) | tag;
}

struct Comm {
  State* state = nullptr;
  uint16_t id = 0;
  int32_t index = 0;
  std::vector<int32_t> ranks;  // world rank of each member

  int32_t size() const { return static_cast<int32_t>(ranks.size()); }
};

// comm_create: validates the group, agrees on an id and connects to every member.
weft_status_t CreateComm(State& state, const int32_t* ranks, int32_t n, int32_t my_index,
                         const char* prefix, int64_t timeout_ms, Comm** out);

}  // namespace weft::backends::ucx_plugin

struct weft_bk_comm : weft::backends::ucx_plugin::Comm {};
