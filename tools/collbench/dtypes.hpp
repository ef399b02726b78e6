// The dtypes collbench sweeps (SPEC §6.2) and the closed-form values its check compares
// against: every rank fills its inputs from (rank, global index), so each output element has
// an expected value computed here, independently of Weft's and Gloo's reduction code.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::collbench {

enum class Kind { kInt, kUInt, kFloat, kHalf, kBfloat, kComplex, kBool };

struct DType {
  const char* name;
  DLDataType dl;
  Kind kind;
  int64_t bytes() const { return dl.bits / 8; }
};

// nullptr when `name` is not a dtype of SPEC §6.2 (aliases: float, half, double, ...).
const DType* FindDType(const std::string& name);
std::vector<std::string> DTypeNames();

// The value rank `rank` contributes at global element `index` to a reduction with `redop`
// (WEFT_REDUCE_*): small integers, so that sums, products, maxima and minima over up to a
// few dozen ranks are exact in every dtype, bfloat16 included.
double InputValue(int redop, int32_t rank, int64_t index, const DType& t);
// The reduction over ranks 0..nranks-1 of InputValue at `index`, in double.
double ExpectedValue(int redop, int32_t nranks, int64_t index, const DType& t);

// Writes v (the real part; imaginary parts are 0) in dtype t at p. Integers wrap modulo
// 2^bits; bool is v != 0.
void Encode(const DType& t, void* p, double v);
// Whether the element at p matches `expected` under t: bit-exact for integers and bool
// (integers compared modulo 2^bits; avg, whose rounding of integers is the backend's, within
// 1), within a relative tolerance for floating types when `redop` is avg.
bool Matches(const DType& t, const void* p, double expected, int redop);

// The byte that rank `rank` places at byte `k` of its send buffer in data-movement
// collectives (which must deliver it bit-exact whatever the dtype).
// Never kPoisonByte, the byte outputs are poisoned with before a checked run, so that an
// element left untouched is always counted wrong.
constexpr uint8_t kPoisonByte = 0xa5;
inline uint8_t PatternByte(int32_t rank, int64_t k) {
  const uint64_t u = static_cast<uint64_t>(k);
  const auto b =
      static_cast<uint8_t>(u * 131u + static_cast<uint64_t>(rank) * 29u + (u >> 8) * 7u + 1u);
  return b == kPoisonByte ? uint8_t{0x5a} : b;
}

}  // namespace weft::collbench
