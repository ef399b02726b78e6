// What Weft knows about element types: which DLPack dtypes it moves and which it reduces.
// The codes are DLPack's (DLDataTypeCode); bool is code 6, which Debian's DLPack 0.6 lacks.
#pragma once

#include <cstdint>
#include <string>

namespace weft {

struct DType {
  uint8_t code = 0;
  uint8_t bits = 0;
  uint16_t lanes = 0;
  friend bool operator==(const DType&, const DType&) = default;
};

inline constexpr uint8_t kCodeInt = 0, kCodeUInt = 1, kCodeFloat = 2, kCodeOpaque = 3,
                         kCodeBfloat = 4, kCodeComplex = 5, kCodeBool = 6;

enum class ReduceOp : int32_t { kSum = 0, kAvg = 1, kMax = 2, kMin = 3, kProd = 4 };
inline constexpr int32_t kNumReduceOps = 5;

const char* ReduceOpName(ReduceOp op);

// Data movement: any whole-byte, single-lane type with a known code. Inline: every collective
// checks its buffers' dtype on every call.
inline bool IsMovable(DType t) {
  return t.lanes == 1 && t.bits > 0 && t.bits % 8 == 0 && t.code <= kCodeBool;
}
// Types the reduction kernels implement (SPEC §6.2).
bool IsReducible(DType t);
bool IsIntegral(DType t);  // int, uint (not bool)
// Whether a collective may reduce `t` with `op` (SPEC §2.4): avg not on integers or bool
// (bool's sum/max mean OR and prod/min mean AND), max/min not on complex (no order).
bool ReduceValidFor(ReduceOp op, DType t, std::string* why);
// Whether a layout may hold `t` as Partial(op) (SPEC §2.3): stricter than the collectives, it
// also rejects Partial(sum|prod) on bool.
bool PartialValidFor(ReduceOp op, DType t, std::string* why);
inline int64_t ItemSize(DType t) { return t.bits / 8; }

// "float32", "bool", "int64", or "dtype(code=7,bits=8,lanes=1)" for the unknown.
std::string DTypeName(DType t);

}  // namespace weft
