// The validation harness (SPEC §5; issue 22 item 6; docs/design/rules.md "Validation
// harness"): for an operator with a reference kernel, a random case (global inputs and
// attributes) is computed once on one process; then, over random layouts of the inputs on
// abstract meshes (1-D, 2-D, 3-D; chunk, ragged and nested splits; Partial), every candidate
// strategy the engine enumerates is run rank by rank — inputs cut by the strategy's input
// layouts, the kernel on each rank's blocks, the outputs put together by the strategy's output
// layouts — and compared with the one-process result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/check/distribute.hpp"
#include "ops/engine/engine.hpp"

namespace weft::ops::check {

// One random instance of an operator: what a family's generator makes.
struct Case {
  std::string op;
  std::vector<TensorInfo> inputs;
  std::vector<DenseTensor> values;  // the global inputs
  Attributes attrs;
  double tolerance = 0;  // relative; 0: exact (integer-valued results)
  // Inputs that must stay whole and unreduced (indices): their random layouts avoid Partial.
  std::vector<bool> no_partial;
};

struct CaseResult {
  int64_t layouts = 0;     // random input layouts tried
  int64_t candidates = 0;  // strategies run rank by rank and compared
  std::string failure;     // empty when every candidate matched
};

// A random mesh: 1-D of 1..4 ranks, 2-D up to 3x3, 3-D up to 2x2x2.
placement::MeshPtr RandomMesh(Rng& rng);

// A random layout of `info` on `mesh`: per mesh dim R, S(random dim) or P(one op for the
// tensor, not avg on integers), and per sharded dim the chunk rule or random explicit sizes
// (zeros included). `partial` false: no Partial.
placement::LayoutPtr RandomLayout(const placement::MeshPtr& mesh, const TensorInfo& info,
                                  bool partial, Rng& rng);

// `s` run rank by rank on the global inputs `values`: each cut by the strategy's input layout,
// the kernel on every rank, the outputs assembled by its output layouts (replicas compared
// within `tolerance`). The global outputs, or what went wrong.
Result<std::vector<DenseTensor>> RunStrategy(const OpDef& op, const Strategy& s,
                                             std::span<const TensorInfo> inputs,
                                             const std::vector<DenseTensor>& values,
                                             const Attributes& attrs, double tolerance, Rng& rng);

// Runs `c` over `layouts` random input layouts on random meshes; every candidate of each.
CaseResult CheckCase(Engine& engine, const OpDef& op, const Case& c, int64_t layouts, Rng& rng);

}  // namespace weft::ops::check
