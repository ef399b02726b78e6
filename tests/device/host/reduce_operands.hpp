// What the Reduce tests of every device implementation share (host, CUDA): random operands of
// a dtype, the sequential reference result, and an element-wise comparison that lets NaN match
// NaN (reduce/reference_ops.hpp).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/device/host/random_regions.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"

namespace weft::device::host::test {

// Random elements of t over the whole buffer, cells item-aligned (no skew).
inline Operand PlaceElements(const TestShape& s, DType t, bool repeat, bool compact,
                             std::mt19937_64& g) {
  Operand o = Place(s, ItemSize(t), repeat, compact, g);
  o.mem.resize(o.mem.size() - static_cast<size_t>(o.skew));  // whole items
  o.skew = 0;
  const auto n = static_cast<uint64_t>(o.mem.size()) / static_cast<uint64_t>(o.item);
  const std::vector<unsigned char> e = RandomElements(t, n, g);
  std::memcpy(o.mem.data(), e.data(), e.size());
  return o;
}

// io's memory after op is applied cell by cell in row-major order of the index.
inline std::vector<char> ReferenceReduce(const OpCase& c, const Operand& io, const Operand& in,
                                         const TestShape& s) {
  std::vector<char> want = io.mem;
  unsigned char out[16];
  for (int64_t i = 0; i < s.Volume(); ++i) {
    auto* at = reinterpret_cast<unsigned char*>(want.data() + CellByte(io, s, i));
    RefElement(c.t, c.op, at,
               reinterpret_cast<const unsigned char*>(in.mem.data() + CellByte(in, s, i)), out);
    std::memcpy(at, out, static_cast<size_t>(ItemSize(c.t)));
  }
  return want;
}

// Every element of got equals want's (NaN matches NaN), else which one differs and how.
inline testing::AssertionResult SameElements(DType t, const std::vector<char>& got,
                                             const std::vector<char>& want) {
  const auto item = static_cast<size_t>(ItemSize(t));
  for (size_t b = 0; b < want.size() && b < got.size(); b += item) {
    const auto* g = reinterpret_cast<const unsigned char*>(got.data() + b);
    const auto* w = reinterpret_cast<const unsigned char*>(want.data() + b);
    if (!SameElement(t, g, w))
      return testing::AssertionFailure()
             << "byte " << b << ": got " << ElementHex(t, g) << ", want " << ElementHex(t, w);
  }
  return testing::AssertionSuccess();
}

}  // namespace weft::device::host::test
