// Single-copy reads into strided memory (backends/ucx/transport/cma.hpp), from this process's own
// memory: process_vm_readv with our pid takes the same path through the kernel as a peer's. Each
// case fills a contiguous source from a formula of the byte's index, reads it into a strided
// destination whose gaps hold a sentinel, and checks every byte of the destination: the
// region's bytes in order, the gaps untouched.
#include "backends/ucx/transport/cma.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backends/ucx/transport/layout.hpp"
#include "strided_rows.hpp"

namespace weft::backends::ucx_plugin {
namespace {

constexpr char kSentinel = '\x5a';

char SourceByte(uint64_t i) { return static_cast<char>((i * 131 + (i >> 9) * 7 + 3) % 251); }

// Rows of `run` bytes every `stride` bytes, `rows` of them, as the plugin sees a strided layout.
Layout RowsOf(uint64_t rows, uint64_t run, uint64_t stride) {
  const weft_bk_strided_t s = StridedRows(rows, run, stride, 1);
  Layout l;
  std::string why;
  EXPECT_TRUE(Normalize(&s, &l, &why)) << why;
  return l;
}

// A page-aligned scratch as the plugin's (State::ReadBounce): kBounceBytes and a page for the
// source's offset in its page.
struct BounceBuffer {
  std::vector<char> mem = std::vector<char>(Bounce::kBounceBytes + 2 * 4096);
  Bounce Get() {
    const auto at = reinterpret_cast<uintptr_t>(mem.data());
    return Bounce{mem.data() + (4096 - at % 4096) % 4096};
  }
};

// Reads `layout`'s bytes from a contiguous source at `source_offset` in its page into a
// destination at `dest_offset`; returns the first wrong byte, or "" when all are right.
std::string ReadAndCheck(const Layout& layout, uint64_t source_offset, uint64_t dest_offset,
                         Bounce bounce) {
  const uint64_t bytes = layout.Bytes();
  std::vector<char> src_mem(bytes + 2 * 4096);
  char* src =
      src_mem.data() + (4096 - reinterpret_cast<uintptr_t>(src_mem.data()) % 4096) + source_offset;
  for (uint64_t i = 0; i < bytes; ++i) src[i] = SourceByte(i);
  uint64_t extent = 0;  // one past the last byte the layout touches
  for (RunCursor c(layout); !c.done(); c.Next())
    extent = std::max(extent, static_cast<uint64_t>(c.offset()) + layout.run);
  std::vector<char> dst_mem(extent + dest_offset + 64, kSentinel);
  char* dst = dst_mem.data() + dest_offset;
  std::string why;
  const weft_status_t s = ReadRemoteRegion(getpid(), reinterpret_cast<uint64_t>(src),
                                           Contiguous(bytes), dst, layout, &why, bounce);
  if (s != WEFT_OK) return "status " + std::to_string(s) + ": " + why;
  std::vector<char> expect(dst_mem.size(), kSentinel);
  uint64_t k = 0;
  for (RunCursor c(layout); !c.done(); c.Next())
    for (uint64_t j = 0; j < layout.run; ++j)
      expect[dest_offset + static_cast<uint64_t>(c.offset()) + j] = SourceByte(k++);
  for (size_t i = 0; i < dst_mem.size(); ++i)
    if (dst_mem[i] != expect[i])
      return "byte " + std::to_string(i) +
             " of the destination: " + std::to_string(static_cast<int>(dst_mem[i])) +
             " instead of " + std::to_string(static_cast<int>(expect[i]));
  return "";
}

struct Rows {
  uint64_t rows, run, stride;
};

// Runs shorter than kUnpackRunsBelow go through the bounce scratch, longer ones straight into
// place; sizes below, at and across the scratch's 128 KiB pieces, so that a piece ends inside a
// run.
const std::vector<Rows> kCases = {
    {1, 1000, 4096},     // one run: contiguous after normalizing
    {300, 1, 3},         // single bytes
    {128, 512, 2048},    // 64 KiB of 512-byte rows (S0 -> S1 over 4 ranks)
    {256, 512, 2048},    // exactly one piece
    {700, 511, 1000},    // 349 KiB, pieces end mid-run
    {333, 1023, 4096},   // the longest bounced run
    {257, 1024, 1100},   // the shortest direct one
    {130, 2048, 8192},   // direct
    {3, 100000, 100007}  // long runs, pieces inside one run
};

TEST(UcxCma, ContiguousReadsIntoStridedMemoryLandExactlyWithAndWithoutTheScratch) {
  BounceBuffer scratch;
  for (const Rows& c : kCases)
    for (const uint64_t source_offset : {0, 1, 4000})
      for (const bool bounced : {true, false}) {
        const std::string wrong =
            ReadAndCheck(RowsOf(c.rows, c.run, c.stride), source_offset,
                         source_offset == 1 ? 17 : 0, bounced ? scratch.Get() : Bounce{});
        EXPECT_EQ(wrong, "") << c.rows << " rows of " << c.run << " bytes every " << c.stride
                             << ", source at " << source_offset << " in its page, "
                             << (bounced ? "with" : "without") << " the scratch";
      }
}

TEST(UcxCma, AReadFromUnmappedMemoryFailsNamingTheCallAndWritesNothing) {
  BounceBuffer scratch;
  const Layout layout = RowsOf(64, 512, 1024);
  std::vector<char> dst(64 * 1024, kSentinel);
  for (const bool bounced : {true, false}) {
    std::string why;
    // Nothing is mapped below vm.mmap_min_addr (64 KiB by default).
    const weft_status_t s = ReadRemoteRegion(getpid(), 4096, Contiguous(layout.Bytes()), dst.data(),
                                             layout, &why, bounced ? scratch.Get() : Bounce{});
    EXPECT_EQ(s, WEFT_ERR_INVALID_ARGUMENT) << why;
    EXPECT_NE(why.find("process_vm_readv"), std::string::npos) << why;
  }
  for (const char c : dst) ASSERT_EQ(c, kSentinel);
}

}  // namespace
}  // namespace weft::backends::ucx_plugin
