// Shared pieces of the redistribute suite: the world, RAII handles for meshes, layouts and
// plans, the value formula and the per-rank Partial terms that reduce to it exactly, and
// RunPair, which fills a source shard, redistributes and checks every destination element.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../backends/conformance/values.hpp"
#include "tests/support/device_buffers.hpp"
#include "tests/support/handles.hpp"
#include "weft/weft.h"

namespace redist {

using conformance::Type;

using weft_test::Layout;
using weft_test::Mesh;
using weft_test::Parse;
using weft_test::Plan;
using weft_test::TheWorld;
using weft_test::World;

// A local buffer of a layout's block, optionally as a transposed (column-major) view.
struct Local {
  std::vector<int64_t> shape, offset, strides;
  weft::test::Buffer<char> mem;
  DLTensor t{};
  Local(const Layout& layout, const Type& type, int32_t rank, bool transposed = false,
        int64_t byte_offset = 0);
  // Device buffers (tests/support/device_buffers.hpp): the memory outlives the work queued on it.
  ~Local();
  Local(const Local&) = delete;
  Local& operator=(const Local&) = delete;
  // Address of the element at local index `idx`.
  char* At(const std::vector<int64_t>& idx);
  int64_t numel() const;
};

const Type& TypeNamed(const std::string& name);

struct PairSpec {
  std::vector<int64_t> mesh;
  std::vector<int64_t> shape;
  std::string type = "float32";
  std::vector<std::string> src, dst;
  std::vector<std::vector<int64_t>> src_splits, dst_splits;
  bool strided_in = false, strided_out = false;
  int repeats = 1;        // executions of one plan, with different values each time
  bool one_shot = false;  // weft_redistribute instead of a plan
  bool async = false;     // with work
  std::string Name() const;
};

// Fills `in` (rank `TheWorld().rank`'s block of `layout` on `mesh`) from the formula, as
// Partial terms where the layout is Partial; checks every element of `out` against it.
void Fill(Local& in, const Layout& layout, const Type& t, const Mesh& mesh,
          const std::vector<int64_t>& global, int iter);
void Check(Local& out, const Type& t, const std::vector<int64_t>& global, int iter,
           const std::string& what);

// Runs the pair on the world and checks every element of this rank's destination block
// (Partial destinations are reduced to Replicate by a second redistribute and checked there).
void RunPair(const PairSpec& spec);

}  // namespace redist
