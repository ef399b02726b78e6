// Host-memory staging for the ops whose buffer layout Gloo cannot take directly: the v-ops
// with gaps between blocks (Gloo's allgatherv/alltoallv want blocks packed in member order)
// and in-place all-to-all.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/gloo/host.hpp"

namespace weft::backends::gloo_plugin {

// A buffer from host->alloc, freed on scope exit. Zero bytes allocate nothing.
class Staging {
 public:
  Staging(const Host& host, uint64_t bytes)
      : host_(host),
        data_(bytes ? static_cast<char*>(host.Alloc(bytes)) : nullptr),
        ok_(bytes == 0 || data_ != nullptr) {}
  ~Staging() { host_.Free(data_); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  char* data() const { return data_; }
  bool ok() const { return ok_; }

 private:
  const Host& host_;
  char* data_;
  bool ok_;
};

// The per-member blocks of a v-op buffer, in bytes.
struct Blocks {
  std::vector<uint64_t> bytes;    // of each member's block
  std::vector<uint64_t> offsets;  // of each member's block from the buffer's start
  uint64_t total = 0;             // sum of bytes: the packed size
  uint64_t extent = 0;            // max(offset + bytes): what the caller's buffer spans
  bool packed = true;             // offsets are the running sums of bytes

  std::vector<int64_t> SignedBytes() const { return {bytes.begin(), bytes.end()}; }
};

// From element counts and displacements (displs NULL: packed). False on overflow.
bool MakeBlocks(const uint64_t* counts, const uint64_t* displs, int32_t n, uint64_t item,
                Blocks* out);
// Copies the blocks of `spread` (laid out as `b`) into `packed`, in member order.
void PackBlocks(const Blocks& b, const char* spread, char* packed);
// The inverse of PackBlocks.
void UnpackBlocks(const Blocks& b, const char* packed, char* spread);

// Gloo wraps every pointer in an unbound buffer and may memcpy zero bytes from it: a valid
// address for empty buffers keeps NULL out of those calls.
void* NonNull(const void* ptr);

}  // namespace weft::backends::gloo_plugin
