// Checkpoint blocks in device memory (CUDA). Files, checksums and preads work on host memory, so
// such a block passes through a compact host copy: a save downloads it before anything reads it,
// a load reads into the copy and uploads it at the end. Both wait for their copies on the
// caller's stream (the options' stream), so a save returns with the buffers free for reuse and
// a load with them written. Host memory (CPU, CUDA pinned) is used in place.
#pragma once

#include <dlpack/dlpack.h>

#include <string>
#include <vector>

#include "api/src/checkpoint_common.hpp"
#include "common/result.hpp"
#include "placement/executor/tensor_view.hpp"

namespace weft::api::ckpt {

// Whether the host reads and writes memory of `d` directly.
bool IsHostMemory(DLDevice d);

class HostCopies {
 public:
  explicit HostCopies(void* stream) : stream_(stream) {}

  // Save: every device item's block is copied to host memory (waited for), and its view points
  // at the copy (compact, row-major).
  Status Download(std::vector<Item>& items);
  // Load: every device item's view points at a host buffer the reads fill...
  void Redirect(std::vector<Item>& items);
  // ...which this copies into the items' device buffers (waited for).
  Status Upload();

 private:
  struct Copy {
    std::string name;
    placement::executor::TensorView device_view;
    DLDevice device{};
    std::vector<char> host;
  };
  void* stream_;
  std::vector<Copy> copies_;
};

}  // namespace weft::api::ckpt
