// Single elements that operations take by value (what a fill writes) and the dtype rules of
// avg. All of it is computed on the host, whatever device the data lives on.
#pragma once

#include <array>
#include <cstdint>

#include "common/dtype.hpp"
#include "common/result.hpp"
#include "device/region.hpp"

namespace weft::device {

// One element's bytes in host byte order; the first ItemSize(dtype) bytes count.
using Element = std::array<char, kMaxItemBytes>;

// The identity of `op` for `t` (op(e, x) == x bit for bit; SPEC §2.4: -0.0 for a float sum).
// kInvalidArgument for a pair the reductions reject, avg included (it has no identity).
Result<Element> IdentityElement(DType t, ReduceOp op);

// `value` as a `t`: floats rounded to nearest-even, integers truncated toward zero and wrapped
// to the width (out-of-range values saturate to int64 first), bool = value != 0, complex =
// value + 0i. Zero bytes for a dtype that is none of these.
Element ElementOf(DType t, double value);

// What avg accumulates `t` in (SPEC §2.4): float64 for the real types of 32 bits or fewer and
// for float64, complex128 for the complex ones; DType{} (all zero) where avg is not defined.
DType AccumulatorType(DType t);

}  // namespace weft::device
