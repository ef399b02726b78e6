// What the checkpoint suites share: the tensors a save writes (every dtype, empty shards, a
// zero-size tensor, a scalar, replicated, ragged and Partial tensors), the value of every
// element as a formula of its global index, and filling and checking a rank's block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/device_buffers.hpp"
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

// A rank's block of a layout with its buffer: compact, or with `pad` unused elements after each
// row (strided, so that saves pack and loads unpack), in host memory or, under
// WEFT_TEST_DEVICE_BUFFERS=1, tagged as CUDA memory (tests/support/device_buffers.hpp).
struct Block {
  std::vector<int64_t> shape, offset, strides;
  weft::test::Buffer<unsigned char> bytes;
  DLTensor tensor{};
  int64_t numel() const;
};
Block MakeBlock(const weft_layout_t* layout, DLDataType dt, int32_t rank, int64_t pad = 0);
// The padding of spec t's blocks in the suites: every other tensor has padded rows.
int64_t PadFor(size_t t);
// Writes the formula into the block (the global value of tensor `t`).
void Fill(Block& b, DLDataType dt, int t, const std::vector<int64_t>& global);
// Partial(sum) over a mesh dim: `share` 0 holds value - 3, share 1 holds 3 (float32 only).
void FillPartial(Block& b, int t, const std::vector<int64_t>& global, int share);
// Counts the elements that differ from the formula, and the padding bytes that changed
// (0: all good).
int64_t Mismatches(const Block& b, DLDataType dt, int t, const std::vector<int64_t>& global);

// A ragged split of n over k pieces, with empty pieces: cut i at n*i*i/(k*k).
std::vector<int64_t> RaggedSizes(int64_t n, int64_t k);

// $WEFT_CKPT_DIR, or weft_ckpt_data under the system's temporary directory.
std::string DataDir();
// The 4-rank checkpoint the save writes and the loads read: $WEFT_CKPT_SAVED under DataDir()
// (default saved4; the tool's launches read the one weft-ckpt split out of its consolidation,
// the cross launches the other save, through a relative path).
std::string SavedPath();

}  // namespace ckpt_test
