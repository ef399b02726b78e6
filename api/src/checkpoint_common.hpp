// What the checkpoint save and load drivers share: the world they run over, the agreement
// step that turns one rank's failure into the same error on every rank (so that none waits
// for a peer that gave up), and the checks of the per-tensor argument arrays.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "placement/executor/tensor_view.hpp"
#include "placement/layout.hpp"
#include "weft/checkpoint.h"

namespace weft::api::ckpt {

using placement::planner::Box;

struct World {
  weft_context_t* ctx = nullptr;
  int32_t rank = 0, size = 1;
  weft_call_options_t call = WEFT_CALL_OPTIONS_INIT;
};
Result<World> WorldOf(weft_context_t* ctx, int64_t timeout_ms);

// Collective: OK on every rank when `mine` is OK on every rank and every rank passed the same
// `digest` (a hash of what must agree: names, shapes, dtypes); otherwise every rank returns
// the error of the lowest failing rank, prefixed with that rank on the others.
Status Agree(const World& w, const Status& mine, uint64_t digest = 0);

// Element-wise sum over the world of a uint64 vector (each rank fills its own slots).
Status SumAll(const World& w, std::vector<uint64_t>& values);

// One named tensor of a call: its layout and this rank's view of its block (empty view when
// the block is empty).
struct Item {
  std::string name;
  placement::LayoutPtr layout;
  placement::executor::TensorView view;
  DLDevice device{kDLCPU, 0};  // where the caller's buffer lives
};
// Checks path, n and the arrays, the names (non-empty, unique) and layouts (live, on ctx's
// world) and builds the items (views are filled by the callers, which know input from output).
Result<std::vector<Item>> CheckItems(const World& w, const char* path, int32_t n,
                                     const char* const* names, const weft_layout_t* const* layouts);
// The view of `t` as rank's block of item's layout (NULL allowed for an empty block).
Status CheckBlockView(const World& w, const DLTensor* t, const std::string& arg, bool output,
                      Item& item);

// FNV-1a over bytes, for digests.
uint64_t Fnv(uint64_t h, const void* data, size_t n);
uint64_t DigestOf(const std::vector<Item>& items);

}  // namespace weft::api::ckpt
