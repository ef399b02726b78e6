// The fingerprint of one public call (docs/collective_checks.md): what this rank passed, in a
// fixed-size record that the members exchange through an operation that cannot itself
// disagree (an all-gather of 64 bytes each, or a 64-byte message each way for send/recv), so
// that every member sees the same records and reaches the same verdict.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/dtype.hpp"

namespace weft::api::check {

enum class Kind : uint8_t {
  kAllreduce = 1,
  kAllgather,
  kAllgatherv,
  kReduceScatter,
  kReduceScatterv,
  kAlltoall,
  kAlltoallv,
  kBroadcast,
  kBarrier,
  kSend,
  kRecv,
};
const char* KindName(Kind k);

// "WFC1": a record of this layout (a peer of another layout shows as a disagreement).
inline constexpr uint32_t kRecordMagic = 0x31434657;

// Host byte order: the ranks of one job share it.
struct Record {
  uint32_t magic = kRecordMagic;
  uint8_t kind = 0;
  uint8_t dtype_code = 0, dtype_bits = 0, dtype_lanes = 0;
  int32_t op = -1;    // reduce op; -1 for data movement
  int32_t root = -1;  // broadcast root; send/recv: the peer (member index)
  int32_t index = 0;  // the member that wrote it
  int32_t tag = 0;    // send/recv
  uint64_t seq = 0;   // collectives: the call's number on the communicator
  uint64_t count = 0;
  // v-collectives: allgatherv and reduce_scatterv a hash of the counts; alltoallv a sum of
  // hashes of (sender, receiver, count) over the sends (a) and the receives (b).
  uint64_t digest_a = 0, digest_b = 0;
  uint64_t group = 0;  // hash of the group's world ranks in order
};
static_assert(sizeof(Record) == 64, "the record is exchanged as 64 bytes");

// What this rank passed to one collective. `count` means, per kind: allreduce and broadcast
// the buffer's elements, allgather the send count, reduce_scatter the receive count, alltoall
// the count per member; send and recv the message's elements; 0 for the v-collectives, whose
// counts differ by member (`counts` must agree instead).
struct Call {
  Kind kind = Kind::kBarrier;
  DType dtype{};
  int32_t op = -1, root = -1;
  uint64_t count = 0;
  // allgatherv: recv_counts; reduce_scatterv: counts; alltoallv: send_counts, recv_counts.
  std::span<const uint64_t> counts, recv_counts;
  uint64_t bytes = 0;  // this rank's data, for the size threshold
  // The buffers, for the ops that the check's exchange can carry whole (collective_fused.cpp):
  // broadcast's buffer is both.
  const void* send = nullptr;
  void* recv = nullptr;
};

Record MakeRecord(const Call& call, int32_t index, int32_t size, uint64_t seq, uint64_t group);
uint64_t GroupHash(std::span<const int32_t> world_ranks);
// alltoallv: the contribution of one (sender, receiver, count) to digest_a or digest_b.
uint64_t PairHash(int32_t from, int32_t to, uint64_t count);

// The first member whose record disagrees with member 0's, or -1. alltoallv records agree
// when the sums of digest_a and digest_b over the members are equal; a disagreement there has
// no member to name and gives `size` (the counts must then be compared one by one).
int32_t FirstDisagreement(std::span<const Record> all);

// "count 8 float32 sum": the arguments a record holds, as its kind names them.
std::string Describe(const Record& r);
// "rank 3": the world rank of a member of `world_ranks` ("member 9" outside it).
std::string RankText(std::span<const int32_t> world_ranks, int32_t index);
// "[0, 1, 2, 3]" (the first eight, then the count).
std::string GroupText(std::span<const int32_t> world_ranks);
// "allreduce #17 on group [0, 1]: rank 0 passed count 8 float32 sum, rank 1 passed count 9
// float32 sum", with world ranks.
std::string MismatchText(std::span<const int32_t> world_ranks, const Record& a, const Record& b);

}  // namespace weft::api::check
