// Shared pieces of the redistribute suite: the world, RAII handles for meshes, layouts and
// plans, the value formula and the per-rank Partial terms that reduce to it exactly, and
// RunPair, which fills a source shard, redistributes and checks every destination element.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../backends/conformance/values.hpp"
#include "weft/weft.h"

namespace redist {

using conformance::Type;

struct World {
  weft_context_t* ctx = nullptr;
  int32_t rank = 0, size = 1;
  bool expect_abort = false;  // a case aborts the context on purpose (bad buffers)
};
World& TheWorld();

#define WEFT_OK_OR_FAIL(call)                                                  \
  do {                                                                         \
    const weft_status_t s_ = (call);                                           \
    ASSERT_EQ(s_, WEFT_OK) << #call << ": " << weft_status_string(s_) << " | " \
                           << weft_last_error();                               \
  } while (0)

struct Mesh {
  weft_mesh_t* m = nullptr;
  explicit Mesh(std::vector<int64_t> shape, weft_context_t* ctx = TheWorld().ctx);
  // A mesh over the given world ranks (row-major).
  Mesh(std::vector<int64_t> shape, std::vector<int32_t> ranks);
  ~Mesh() { weft_mesh_destroy(m); }
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;
};

// "R", "S0".."S2", "Ps" sum, "Pa" avg, "Pm" max, "Pn" min, "Pp" prod.
weft_placement_t Parse(const std::string& p);

struct Layout {
  weft_layout_t* l = nullptr;
  weft_status_t status = WEFT_OK;
  std::vector<std::string> placements;
  // splits: per tensor dim, empty = chunk.
  Layout(const Mesh& mesh, std::vector<int64_t> shape, DLDataType dt,
         std::vector<std::string> placements, std::vector<std::vector<int64_t>> splits = {});
  ~Layout() { weft_layout_destroy(l); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
};

struct Plan {
  weft_plan_t* p = nullptr;
  ~Plan() { weft_plan_destroy(p); }
};

// A local buffer of a layout's block, optionally as a transposed (column-major) view.
struct Local {
  std::vector<int64_t> shape, offset, strides;
  std::vector<char> mem;
  DLTensor t{};
  Local(const Layout& layout, const Type& type, int32_t rank, bool transposed = false,
        int64_t byte_offset = 0);
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
