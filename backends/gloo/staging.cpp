#include "backends/gloo/staging.hpp"

#include <algorithm>
#include <cstring>

#include "backends/gloo/dtype.hpp"

namespace weft::backends::gloo_plugin {

bool MakeBlocks(const uint64_t* counts, const uint64_t* displs, int32_t n, uint64_t item,
                Blocks* out) {
  Blocks b;
  b.bytes.resize(n);
  b.offsets.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    uint64_t offset = b.total, end = 0;
    if (!CheckedMul(counts[i], item, &b.bytes[i])) return false;
    if (displs != nullptr && !CheckedMul(displs[i], item, &offset)) return false;
    if (!CheckedAdd(offset, b.bytes[i], &end)) return false;
    b.packed = b.packed && offset == b.total;
    b.offsets[i] = offset;
    b.extent = std::max(b.extent, end);
    if (!CheckedAdd(b.total, b.bytes[i], &b.total)) return false;
  }
  *out = std::move(b);
  return true;
}

void PackBlocks(const Blocks& b, const char* spread, char* packed) {
  uint64_t at = 0;
  for (size_t i = 0; i < b.bytes.size(); ++i) {
    if (b.bytes[i] > 0) std::memcpy(packed + at, spread + b.offsets[i], b.bytes[i]);
    at += b.bytes[i];
  }
}

void UnpackBlocks(const Blocks& b, const char* packed, char* spread) {
  uint64_t at = 0;
  for (size_t i = 0; i < b.bytes.size(); ++i) {
    if (b.bytes[i] > 0) std::memcpy(spread + b.offsets[i], packed + at, b.bytes[i]);
    at += b.bytes[i];
  }
}

void* NonNull(const void* ptr) {
  static char empty;
  return ptr ? const_cast<void*>(ptr) : &empty;
}

}  // namespace weft::backends::gloo_plugin
