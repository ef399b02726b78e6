// The plugin kit's argument checks: what every op of a backend plugin checks before it moves a
// byte. Each answers yes/no (or the bytes); the plugin words the message, since only it knows
// the op and where to report. Header-only, depending on the plugin ABI alone.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <weft/backend_plugin.h>

namespace weft::plugin_kit {

// The op's arguments as this plugin's header has them, whatever the host's version: a field the
// host's weft_bk_op_t ends before (1.0's has no flags) keeps its default. args NULL: host
// memory, `default_timeout_ms`, seq 0.
inline weft_bk_op_t ReadOpArgs(const weft_bk_op_t* args, int64_t default_timeout_ms) {
  weft_bk_op_t out{};
  out.struct_size = sizeof(out);
  out.device = DLDevice{kDLCPU, 0};
  out.timeout_ms = default_timeout_ms;
  if (args != nullptr) {
    std::memcpy(&out, args, std::min<size_t>(args->struct_size, sizeof(out)));
    out.struct_size = sizeof(out);
  }
  return out;
}

// Memory a host-memory plugin can touch: kDLCPU and pinned host memory (kDLCUDAHost).
inline bool IsHostMemory(DLDevice device) {
  return device.device_type == kDLCPU || device.device_type == kDLCUDAHost;
}
// NULL args: host memory.
inline bool IsHostMemory(const weft_bk_op_t* args) {
  return args == nullptr || IsHostMemory(args->device);
}

// Bytes of one element of `t` (lanes 0 counts as 1), or false where its bits are not a whole
// number of bytes (or 0).
inline bool ItemBytes(DLDataType t, uint64_t* item) {
  if (t.bits == 0 || t.bits % 8 != 0) return false;
  *item = uint64_t{t.bits} / 8 * (t.lanes ? t.lanes : 1u);
  return true;
}

// count * item, or false where it overflows.
inline bool CheckedBytes(uint64_t count, uint64_t item, uint64_t* bytes) {
  return !__builtin_mul_overflow(count, item, bytes);
}

// A buffer of `count` elements of `item` bytes: its bytes fit in 64 bits and it is not NULL
// unless empty.
enum class BufferCheck { kOk, kOverflow, kNull };
inline BufferCheck CheckBuffer(const void* ptr, uint64_t count, uint64_t item, uint64_t* bytes) {
  if (!CheckedBytes(count, item, bytes)) return BufferCheck::kOverflow;
  if (ptr == nullptr && *bytes != 0) return BufferCheck::kNull;
  return BufferCheck::kOk;
}

}  // namespace weft::plugin_kit
