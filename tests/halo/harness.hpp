// Shared pieces of the halo suite: the world, RAII handles, meshes chosen from the world size,
// buffers in any stride style (with guard bytes around embedded tensors), dtype encodings and
// small collectives the checks use to compare what every rank saw.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../backends/conformance/values.hpp"
#include "tests/support/device_buffers.hpp"
#include "tests/support/handles.hpp"
#include "weft/weft.h"

namespace halo {

using conformance::Type;

using weft_test::Mesh;
using weft_test::Parse;
using weft_test::Plan;
using weft_test::TheWorld;
using weft_test::World;

// A layout the case expects to be valid.
struct Layout : weft_test::Layout {
  Layout(const Mesh& mesh, const std::vector<int64_t>& shape, DLDataType dt,
         const std::vector<std::string>& placements,
         const std::vector<std::vector<int64_t>>& splits = {})
      : weft_test::Layout(mesh, shape, dt, placements, splits) {
    EXPECT_EQ(status, WEFT_OK) << weft_last_error();
  }
};

// Mesh shapes of 1, 2 and 3 dims whose product is the world size (so every case runs in
// every launch): 8 ranks give 4x2 / 2x2x2, 4 give 2x2 / 2x2x1, primes n x 1 / 1 x n x 1.
std::vector<int64_t> Mesh1D();
std::vector<int64_t> Mesh2D();
std::vector<int64_t> Mesh3D();

const Type& TypeNamed(const std::string& name);

// How a buffer lays its elements out: row-major, column-major, or embedded in a larger
// row-major array (every stride bigger than the extents need, a byte offset, and guard
// bytes in the gaps that must survive every call).
enum class Style { kRowMajor, kColumnMajor, kEmbedded };

struct Block {
  std::vector<int64_t> shape, strides;
  weft::test::Buffer<char> mem;
  int bytes = 1;
  DLTensor t{};
  Block(const std::vector<int64_t>& shape, const Type& type, Style style);
  // Device buffers (tests/support/device_buffers.hpp): the memory outlives the work queued on it.
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  char* At(const std::vector<int64_t>& idx);
  int64_t numel() const;
  // Counts bytes outside the tensor's elements that no longer hold the guard pattern.
  int64_t DamagedGuardBytes() const;
};

constexpr char kGuard = char(0xa5);

// Calls fn(idx) for every index of a box of extents `shape` (nothing when one is 0).
template <class Fn>
void ForEachIndex(const std::vector<int64_t>& shape, Fn&& fn) {
  for (int64_t e : shape)
    if (e <= 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    fn(idx);
    size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (shape.empty()) return;
  }
}

// Writes v in type t; with nan_payload (float64 only) writes the quiet NaN whose payload is
// the integer v instead: bytes no arithmetic produces, that only a byte copy preserves.
void EncodeValue(const Type& t, bool nan_payload, void* p, double v);
double DecodeF64(const void* p);

// World-wide reductions of one int64 / double (checks that every rank saw the same thing).
int64_t AllMin(int64_t v);
int64_t AllMax(int64_t v);
double AllSum(double v);
// Agreement of a string across ranks (FNV-1a hash compared by min and max).
bool SameOnAllRanks(const std::string& s);
// Whether the current test failed on any rank. Loops stop on it rather than on the local
// HasFailure(), so that every rank leaves at the same point and nobody waits on a peer.
bool AnyRankFailed();

}  // namespace halo
