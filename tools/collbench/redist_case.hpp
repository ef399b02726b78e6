// One redistribute row: the mesh, the two layouts of a 2-D float32 tensor, the plan (made once
// per row) and this rank's source and destination blocks, filled from and checked against a
// closed form of the global index.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/collbench/device_memory.hpp"
#include "tools/collbench/pattern.hpp"

namespace weft::collbench {

class RedistCase {
 public:
  // The global shape for `bytes` of float32: [rows, cols] with cols the largest power of two
  // not above sqrt(elements) (square for powers of four), rows = elements / cols.
  static std::vector<int64_t> GlobalShape(int64_t bytes);

  RedistCase() = default;
  RedistCase(const RedistCase&) = delete;
  RedistCase& operator=(const RedistCase&) = delete;
  ~RedistCase();

  // Builds the mesh, layouts, plan and buffers (in CUDA memory with `device`, mirrored on the
  // host); false with *error on failure. Collective-free.
  bool Init(weft_context_t* ctx, const Pattern& p, int64_t bytes, int32_t rank, int32_t nranks,
            DeviceMemory* device, std::string* error);

  // Source from the closed form (Partial sources: per-rank terms whose reduction is exactly
  // the value); destination poisoned.
  void Fill();
  // Device buffers: complete once the stream has run it (timed iterations end with it).
  weft_status_t Run();
  // Wrong destination elements on this rank; -1 when the destination is Partial (unchecked).
  int64_t CountWrong();
  // The plan's steps for this rank (weft_plan_describe).
  std::string Describe() const;

  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t size_bytes() const { return shape_[0] * shape_[1] * 4; }

 private:
  struct Block {
    int64_t shape[2] = {0, 0}, offset[2] = {0, 0};
    std::vector<float> data;
    float* device = nullptr;  // the CUDA copy, with -d cuda
    DLTensor tensor{};
  };
  bool MakeBlock(const weft_layout_t* layout, Block* b, std::string* error);
  // Reduction op and this rank's index among the ranks a Partial source reduces over.
  void PartialRole(int* op, int64_t* index, int64_t* count) const;

  const Pattern* pattern_ = nullptr;
  int32_t rank_ = 0;
  std::vector<int64_t> shape_;
  weft_mesh_t* mesh_ = nullptr;
  weft_layout_t *src_layout_ = nullptr, *dst_layout_ = nullptr;
  weft_plan_t* plan_ = nullptr;
  Block src_, dst_;
  DeviceMemory* device_ = nullptr;
};

}  // namespace weft::collbench
