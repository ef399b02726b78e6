// Per-element reference of every (dtype, op) the kernels implement, on raw element bytes,
// plus the test inputs: random buffers salted with the values that break kernels.
#pragma once

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/dtype.hpp"

namespace weft::device::host::test {

inline constexpr DType kF16{kCodeFloat, 16, 1};
inline constexpr DType kBF16{kCodeBfloat, 16, 1};
inline constexpr DType kF32{kCodeFloat, 32, 1};
inline constexpr DType kF64{kCodeFloat, 64, 1};
inline constexpr DType kC64{kCodeComplex, 64, 1};
inline constexpr DType kC128{kCodeComplex, 128, 1};
inline constexpr DType kBool{kCodeBool, 8, 1};
inline constexpr DType kI8{kCodeInt, 8, 1};
inline constexpr DType kI16{kCodeInt, 16, 1};
inline constexpr DType kI32{kCodeInt, 32, 1};
inline constexpr DType kI64{kCodeInt, 64, 1};
inline constexpr DType kU8{kCodeUInt, 8, 1};
inline constexpr DType kU16{kCodeUInt, 16, 1};
inline constexpr DType kU32{kCodeUInt, 32, 1};
inline constexpr DType kU64{kCodeUInt, 64, 1};

// Every dtype the kernels reduce (SPEC §6.2).
std::vector<DType> AllReducibleTypes();
inline constexpr ReduceOp kElementOps[] = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin,
                                           ReduceOp::kProd};

struct OpCase {
  DType t;
  ReduceOp op;
};
// Every (dtype, op) with an element kernel: ReduceValidFor and not avg.
std::vector<OpCase> AllElementCases();
// "float16_sum", for parameterized test names.
std::string CaseName(const OpCase& c);
inline void PrintTo(const OpCase& c, std::ostream* os) { *os << CaseName(c); }

// op(a, b) for one element of t, written to out (ItemSize(t) bytes).
void RefElement(DType t, ReduceOp op, const unsigned char* a, const unsigned char* b,
                unsigned char* out);

// Bitwise equality, except that a NaN lane matches any NaN (payloads are not specified).
bool SameElement(DType t, const unsigned char* got, const unsigned char* want);

// The element's bytes in hex, most significant first, for failure messages.
std::string ElementHex(DType t, const unsigned char* e);

// `count` random elements of t, a quarter of them special values (signed zeros, infinities,
// NaN, extremes, subnormals; integer min/max/-1; bool bytes other than 0 and 1).
std::vector<unsigned char> RandomElements(DType t, uint64_t count, std::mt19937_64& gen);

}  // namespace weft::device::host::test
