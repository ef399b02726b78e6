// What the checkpoint suites share: the tensors a save writes (every dtype, empty shards, a
// zero-size tensor, a scalar, replicated, ragged and Partial tensors), the value of every
// element as a formula of its global index, and filling and checking a rank's block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/handles.hpp"

namespace ckpt_test {

struct Spec {
  std::string name;
  DLDataType dtype;
  std::vector<int64_t> shape;
  std::vector<std::string> placements;       // on the 2x2 save mesh
  std::vector<std::vector<int64_t>> splits;  // per dim, empty = chunk
};

// The tensors saved on 4 ranks ([S0,S1] on 2x2 and friends); the index of a spec is its
// position here, which the formula takes.
const std::vector<Spec>& SavedSpecs();

// The bytes of element `g` (row-major global index) of tensor `t`, as the formula gives it.
void Expected(DLDataType dt, int t, int64_t g, unsigned char* out);

// A rank's block of a layout with its buffer.
struct Block {
  std::vector<int64_t> shape, offset;
  std::vector<unsigned char> bytes;
  DLTensor tensor{};
  int64_t numel() const;
};
Block MakeBlock(const weft_layout_t* layout, DLDataType dt, int32_t rank);
// Writes the formula into the block (the global value of tensor `t`).
void Fill(Block& b, DLDataType dt, int t, const std::vector<int64_t>& global);
// Partial(sum) over a mesh dim: `share` 0 holds value - 3, share 1 holds 3 (float32 only).
void FillPartial(Block& b, int t, const std::vector<int64_t>& global, int share);
// Counts the elements that differ from the formula (0: all good).
int64_t Mismatches(const Block& b, DLDataType dt, int t, const std::vector<int64_t>& global);

// A ragged split of n over k pieces, with empty pieces: cut i at n*i*i/(k*k).
std::vector<int64_t> RaggedSizes(int64_t n, int64_t k);

// $WEFT_CKPT_DIR, or weft_ckpt_data under the system's temporary directory.
std::string DataDir();

}  // namespace ckpt_test
