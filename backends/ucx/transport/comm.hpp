// A communicator: a group of world ranks meeting under a store prefix, with an id that keeps
// its messages apart from every other communicator's on the same worker.
//
// UCX tag (64 bits, matched with a full mask, no wildcards):
//   bits 63..49  communicator id (15 bits, agreed through the store, never 0 for groups > 1)
//   bit  48      set on the host's argument records of checked user send/recv
//                (kCheckTagBase | role << 31 | user tag, backends/host/communicator.hpp);
//                the low 32 bits are then role << 31 | user tag
//   bit  47      set on the Ack of a single-copy message (cma.hpp), which goes back from the
//                receiver under the message's tag
//   bits 46..32  the sender's group index (15 bits: groups of at most 32768 members)
//   bits 31..0   the op's tag: user tags 0..2^31-1 as they are; the host's internal tags
//                (kInternalTagBase = 2^40 plus 0..2^20-1, see backends/host/communicator.hpp)
//                as 2^31 | (tag - 2^40), accepted up to 2^30-1; the plugin's own collectives
//                as 2^31 | 2^30 | (collective number mod 2^30). Anything else is rejected.
//                UCX matches in posting order per sender and tag, so the messages of one
//                collective between two members (rounds, segments) share the tag and meet in
//                the order both sides post them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/ucx/transport/state.hpp"

namespace weft::backends::ucx_plugin {

inline constexpr int kSourceShift = 32;
inline constexpr int kCommShift = 49;
inline constexpr int kCheckShift = 48;
inline constexpr int kAckShift = 47;
inline constexpr uint32_t kMaxCommId = (1u << 15) - 1;
inline constexpr int32_t kMaxMembers = 1 << 15;
inline constexpr int64_t kUserTagLimit = int64_t{1} << 31;
inline constexpr int64_t kHostInternalTagBase = int64_t{1} << 40;
inline constexpr int64_t kHostInternalTagLimit = int64_t{1} << 30;
inline constexpr int64_t kHostCheckTagBase = int64_t{1} << 42;
inline constexpr uint32_t kCollectiveTagBit = uint32_t{3} << 30;

// The bits 48..0 for a weft tag (bit 48 and the low 32), or false when it has no encoding.
inline bool EncodeTag(int64_t tag, uint64_t* out) {
  if (tag >= 0 && tag < kUserTagLimit) {
    *out = static_cast<uint64_t>(tag);
    return true;
  }
  if (tag >= kHostInternalTagBase && tag - kHostInternalTagBase < kHostInternalTagLimit) {
    *out = static_cast<uint64_t>(kUserTagLimit | (tag - kHostInternalTagBase));
    return true;
  }
  if (tag >= kHostCheckTagBase && tag - kHostCheckTagBase < 2 * kUserTagLimit) {
    *out = (uint64_t{1} << kCheckShift) | static_cast<uint64_t>(tag - kHostCheckTagBase);
    return true;
  }
  return false;
}

// The op tag of the plugin's collective number `seq` on a communicator.
inline uint32_t CollectiveTag(uint32_t seq) { return kCollectiveTagBit | (seq & 0x3FFFFFFFu); }

inline uint64_t WireTag(uint16_t comm_id, int32_t source_index, uint64_t tag) {
  return (uint64_t{comm_id} << kCommShift) |
         (static_cast<uint64_t>(source_index & (kMaxMembers - 1)) << kSourceShift) | tag;
}

// The tag of the Ack that the member `receiver_index` sends back for a single-copy message.
inline uint64_t AckTag(uint16_t comm_id, int32_t receiver_index, uint64_t tag) {
  return WireTag(comm_id, receiver_index, tag) | (uint64_t{1} << kAckShift);
}

struct ScratchBuffer;
class BoardQueue;

struct Comm {
  State* state = nullptr;
  uint16_t id = 0;
  int32_t index = 0;
  std::vector<int32_t> ranks;  // world rank of each member
  // The collectives this member started (every member starts them in the same order).
  uint32_t collectives = 0;
  // Scratch memory of earlier collectives, kept for the next one: fresh pages cost a page
  // fault each, which at 64 MiB is slower than the transfer (SPEC §11.1).
  std::vector<std::shared_ptr<ScratchBuffer>> scratch;
  // What the small blocking all-reduce reuses from call to call (coll/small.cpp).
  std::shared_ptr<void> small;
  // The queue of calls on the members' shared-memory boards (coll/board.hpp), when every
  // member agreed to use boards; null otherwise. Shared with the requests of board calls,
  // which may outlive the communicator.
  std::shared_ptr<BoardQueue> board;
  // The host's reduction kernel for the (dtype, op) this communicator reduced with last
  // (coll/entry.cpp): a run of calls with one pair looks it up once. The host issues a
  // communicator's ops from one thread at a time, so this needs no lock.
  uint64_t kernel_pair = ~uint64_t{0};
  weft_bk_reduce_fn kernel = nullptr;

  int32_t size() const { return static_cast<int32_t>(ranks.size()); }
};

// comm_create: validates the group, agrees on an id and connects to every member.
weft_status_t CreateComm(State& state, const int32_t* ranks, int32_t n, int32_t my_index,
                         const char* prefix, int64_t timeout_ms, Comm** out);

}  // namespace weft::backends::ucx_plugin

struct weft_bk_comm : weft::backends::ucx_plugin::Comm {};
