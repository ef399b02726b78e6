// The plugin's all-gather and all-to-all with blocks large enough that their paths for large
// messages run: single copy (or pipes) per block, the own block copied in slices with progress
// between them while the peers' blocks are read (Schedule::CopyDuring), and on 3+ ranks of one
// host the direct all-gather. The conformance suite's sizes are too small for any of that.
// Values are formulas of (call, source rank, destination rank, index); every byte is checked.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "forked_ranks.hpp"
#include "helpers.hpp"

namespace weft::test::ucx {
namespace {

// Block sizes in bytes: below the 32 KiB slice, a few slices, and past a pipe's ring.
const std::vector<uint64_t> kBlocks = {40 << 10, (300 << 10) + 7, (1 << 20) + 5};

uint8_t Value(size_t call, int32_t from, int32_t to, size_t i) {
  return static_cast<uint8_t>(
      (call * 131 + static_cast<size_t>(from) * 31 + static_cast<size_t>(to) * 7 + i * 13) % 251);
}

// Each block size three times (figures, buffers and ways warm up), all-gather then all-to-all.
std::string LargeBlocks(Rank& r) {
  const weft_backend_plugin_t& t = *r.plugin;
  const weft_bk_op_t op = r.Op();
  const int32_t n = r.size, me = r.rank;
  size_t call = 0;
  for (uint64_t b : kBlocks)
    for (int rep = 0; rep < 3; ++rep) {
      ++call;
      std::vector<uint8_t> mine(b), all(b * n, 0);
      for (size_t i = 0; i < b; ++i) mine[i] = Value(call, me, -1, i);
      weft_status_t s = t.allgather(r.comm, mine.data(), all.data(), b, kU8, &op, nullptr);
      if (s != WEFT_OK) return Err("allgather", s);
      for (int32_t from = 0; from < n; ++from)
        for (size_t i = 0; i < b; ++i)
          if (all[from * b + i] != Value(call, from, -1, i))
            return "allgather of " + std::to_string(b) + "-byte blocks: block " +
                   std::to_string(from) + " byte " + std::to_string(i) + " is wrong";
      std::vector<uint8_t> out(b * n), in(b * n, 0);
      for (int32_t to = 0; to < n; ++to)
        for (size_t i = 0; i < b; ++i) out[to * b + i] = Value(call, me, to, i);
      if ((s = t.alltoall(r.comm, out.data(), in.data(), b, kU8, &op, nullptr)))
        return Err("alltoall", s);
      for (int32_t from = 0; from < n; ++from)
        for (size_t i = 0; i < b; ++i)
          if (in[from * b + i] != Value(call, from, me, i))
            return "alltoall of " + std::to_string(b) + "-byte blocks: from " +
                   std::to_string(from) + " byte " + std::to_string(i) + " is wrong";
    }
  return "";
}

TEST(UcxCollectives, LargeBlocksLandExactlyOnTwoRanks) { ExpectAllOk(RunRanks(2, LargeBlocks)); }

// Three and four ranks take the direct all-gather (every member on this host).
TEST(UcxCollectives, LargeBlocksLandExactlyOnThreeRanks) {
  ExpectAllOk(RunRanks(3, LargeBlocks, 60));
}

TEST(UcxCollectives, LargeBlocksLandExactlyOnFourRanks) {
  ExpectAllOk(RunRanks(4, LargeBlocks, 60));
}

// The same with the way of each message measured (pipes or single copy, path_choice.hpp) and
// with the ring all-gather.
TEST(UcxCollectives, LargeBlocksLandExactlyWithMeasuredWaysAndTheRing) {
  ScopedEnv adapt("WEFT_UCX_PIPE_ADAPT", "1");
  ScopedEnv ring("WEFT_UCX_ALLGATHER_DIRECT", "0");
  ExpectAllOk(RunRanks(3, LargeBlocks, 60));
}

// Reduce-scatter of int32 sums, with blocks whose other members' contributions fit the direct
// reduce-scatter's scratch (members on one host, coll/reduce_scatter.cpp) and one that does
// not (the ring), each out of place, in place in this member's block, and in the API's
// in-place form (result at the start of the input). Each element of rank r's contribution to
// block b is a formula of (call, r, b, i); every element of the sum is checked.
int32_t Term(size_t call, int32_t from, int32_t block, size_t i) {
  return static_cast<int32_t>((call * 7 + static_cast<size_t>(from) * 1000003 +
                               static_cast<size_t>(block) * 11 + i * 5) %
                              100000) -
         50000;
}

std::string ReduceScatterBlocks(Rank& r) {
  const weft_backend_plugin_t& t = *r.plugin;
  const weft_bk_op_t op = r.Op();
  const int32_t n = r.size, me = r.rank;
  // Elements per block: a few pages; 256 KiB and a bit (3 or 4 ranks: within the direct form's
  // 1 MiB of scratch for n - 1 blocks); past that and past the ring's 256 KiB segments.
  const std::vector<uint64_t> counts = {3000, (64 << 10) + 3, (uint64_t{5} << 20) / 4 + 1};
  size_t call = 0;
  for (uint64_t c : counts)
    for (int form = 0; form < 3; ++form) {
      ++call;
      std::vector<int32_t> in(c * n), out(c, 0);
      for (int32_t b = 0; b < n; ++b)
        for (size_t i = 0; i < c; ++i) in[b * c + i] = Term(call, me, b, i);
      int32_t* result = form == 0 ? out.data() : form == 1 ? in.data() + me * c : in.data();
      weft_status_t s =
          t.reduce_scatter(r.comm, in.data(), result, c, kI32, WEFT_REDUCE_SUM, &op, nullptr);
      if (s != WEFT_OK) return Err("reduce_scatter", s);
      for (size_t i = 0; i < c; ++i) {
        int64_t want = 0;
        for (int32_t from = 0; from < n; ++from) want += Term(call, from, me, i);
        if (result[i] != static_cast<int32_t>(want))
          return "reduce_scatter of " + std::to_string(c) + " elements (form " +
                 std::to_string(form) + "): element " + std::to_string(i) + " is " +
                 std::to_string(result[i]) + ", not " + std::to_string(want);
      }
    }
  return "";
}

TEST(UcxCollectives, ReduceScatterBlocksSumExactlyOnThreeRanks) {
  ExpectAllOk(RunRanks(3, ReduceScatterBlocks, 60));
}

TEST(UcxCollectives, ReduceScatterBlocksSumExactlyOnFourRanks) {
  ExpectAllOk(RunRanks(4, ReduceScatterBlocks, 60));
}

TEST(UcxCollectives, ReduceScatterBlocksSumExactlyOnTheRing) {
  ScopedEnv ring("WEFT_UCX_REDUCE_SCATTER_DIRECT_BYTES", "0");
  ExpectAllOk(RunRanks(3, ReduceScatterBlocks, 60));
}

}  // namespace
}  // namespace weft::test::ucx
