// RAII handles over the C ABI for the multi-process suites: meshes of the world's context,
// layouts from placement names, plans.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/world.hpp"

namespace weft_test {

struct Mesh {
  weft_mesh_t* m = nullptr;
  explicit Mesh(const std::vector<int64_t>& shape, weft_context_t* ctx = TheWorld().ctx);
  // A mesh over the given world ranks, one per row-major position (empty: 0..n-1).
  Mesh(const std::vector<int64_t>& shape, const std::vector<int32_t>& ranks);
  ~Mesh() { weft_mesh_destroy(m); }
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;
};

// "R", "S0".."S9", "Ps" sum, "Pa" avg, "Pm" max, "Pn" min, "Pp" prod.
weft_placement_t Parse(const std::string& p);

// status holds what weft_layout_create_ragged returned (cases that expect errors check it).
struct Layout {
  weft_layout_t* l = nullptr;
  weft_status_t status = WEFT_OK;
  std::vector<std::string> placements;
  // splits: per tensor dim, empty = chunk.
  Layout(const Mesh& mesh, const std::vector<int64_t>& shape, DLDataType dt,
         std::vector<std::string> placements, const std::vector<std::vector<int64_t>>& splits = {});
  ~Layout() { weft_layout_destroy(l); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
};

struct Plan {
  weft_plan_t* p = nullptr;
  Plan() = default;
  ~Plan() { weft_plan_destroy(p); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
};

}  // namespace weft_test
