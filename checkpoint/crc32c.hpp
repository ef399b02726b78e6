// CRC-32C (Castagnoli), the checksum of every box in a checkpoint: the polynomial that x86's
// SSE4.2 computes in hardware, so verifying a box costs a fraction of reading it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::checkpoint {

// Extends `crc` (0 for the empty string) over n bytes; Crc32c(Crc32c(0, a), b) == crc of a+b.
uint32_t Crc32c(uint32_t crc, const void* data, size_t n);

}  // namespace weft::checkpoint
