// Strided regions (weft_bk_strided_t) as runs of contiguous bytes: the plugin's form for
// packing, unpacking and cross-memory reads of non-contiguous data.
#pragma once

#include <cstdint>
#include <string>

#include <weft/backend_plugin.h>

namespace weft::backends::ucx_plugin {

// `run` contiguous bytes at every offset sum_d i_d * stride[d] (0 <= i_d < shape[d]) from the
// region's start, in row-major order of i; ndim 0 is a single run. Dims of extent 1 are
// dropped, dims that continue one another merged, and the innermost dense dim folded into
// `run`, so a contiguous region is always {run = bytes, ndim = 0}.
struct Layout {
  uint64_t run = 0;
  uint32_t ndim = 0;
  uint32_t reserved = 0;
  uint64_t shape[WEFT_BK_MAX_DIMS] = {};
  int64_t stride[WEFT_BK_MAX_DIMS] = {};

  uint64_t Runs() const;
  uint64_t Bytes() const { return run * Runs(); }
};

// One contiguous region of `bytes`.
Layout Contiguous(uint64_t bytes);

// Checks and normalizes `l`; false with *why set when it is malformed or its size overflows.
bool Normalize(const weft_bk_strided_t* l, Layout* out, std::string* why);

// Walks the run offsets (bytes, from the region's start) in order.
class RunCursor {
 public:
  explicit RunCursor(const Layout& l) : l_(l) {}
  bool done() const { return done_ || l_.run == 0; }
  int64_t offset() const { return offset_; }
  void Next();

 private:
  const Layout& l_;
  uint64_t index_[WEFT_BK_MAX_DIMS] = {};
  int64_t offset_ = 0;
  bool done_ = false;
};

// Copies the region at `base` into `out` (Bytes() bytes), and back.
void PackRuns(const char* base, const Layout& l, char* out);
void UnpackRuns(const char* in, const Layout& l, char* base);

}  // namespace weft::backends::ucx_plugin
