#include "backends/ucx/transport/layout.hpp"

#include <cstring>
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {

uint64_t Layout::Runs() const {
  uint64_t n = 1;
  for (uint32_t d = 0; d < ndim; ++d) n *= shape[d];
  return n;
}

Layout Contiguous(uint64_t bytes) {
  Layout l;
  l.run = bytes;
  return l;
}

bool Normalize(const weft_bk_strided_t* in, Layout* out, std::string* why) {
  if (in == nullptr || in->struct_size < sizeof(weft_bk_strided_t)) {
    *why = "strided layout is NULL or has an unknown struct_size";
    return false;
  }
  if (in->ndim < 1 || in->ndim > WEFT_BK_MAX_DIMS || in->item_bytes == 0) {
    *why = "strided layout has " + std::to_string(in->ndim) + " dims (1.." +
           std::to_string(WEFT_BK_MAX_DIMS) + ") or items of 0 bytes";
    return false;
  }
  Layout l;
  uint64_t total = in->item_bytes;
  for (uint32_t d = 0; d < in->ndim; ++d) {
    if (in->shape[d] != 0 && total > UINT64_MAX / in->shape[d]) {
      *why = "strided layout: the region's size overflows";
      return false;
    }
    total *= in->shape[d];
  }
  if (total == 0) {  // an empty region
    *out = Contiguous(0);
    return true;
  }
  // Keep the dims of extent > 1, outermost first.
  for (uint32_t d = 0; d < in->ndim; ++d) {
    if (in->shape[d] == 1) continue;
    l.shape[l.ndim] = in->shape[d];
    l.stride[l.ndim] = in->strides[d];
    ++l.ndim;
  }
  l.run = in->item_bytes;
  // Fold dense innermost dims into the run, then merge dims that continue one another.
  while (l.ndim > 0 && l.stride[l.ndim - 1] == static_cast<int64_t>(l.run)) {
    l.run *= l.shape[l.ndim - 1];
    --l.ndim;
  }
  uint32_t w = 0;
  for (uint32_t d = 0; d < l.ndim; ++d) {
    if (w > 0 && l.stride[w - 1] == static_cast<int64_t>(l.shape[d]) * l.stride[d]) {
      l.shape[w - 1] *= l.shape[d];
      l.stride[w - 1] = l.stride[d];
      continue;
    }
    l.shape[w] = l.shape[d];
    l.stride[w] = l.stride[d];
    ++w;
  }
  for (uint32_t d = w; d < WEFT_BK_MAX_DIMS; ++d) l.shape[d] = 0, l.stride[d] = 0;
  l.ndim = w;
  *out = l;
  return true;
}

void RunCursor::Next() {
  for (int32_t d = static_cast<int32_t>(l_.ndim) - 1; d >= 0; --d) {
    if (++index_[d] < l_.shape[d]) {
      offset_ += l_.stride[d];
      return;
    }
    offset_ -= static_cast<int64_t>(index_[d] - 1) * l_.stride[d];
    index_[d] = 0;
  }
  done_ = true;
}

void PackRuns(const char* base, const Layout& l, char* out) {
  for (RunCursor c(l); !c.done(); c.Next()) {
    CopyBytes(out, base + c.offset(), l.run);
    out += l.run;
  }
}

void UnpackRuns(const char* in, const Layout& l, char* base) {
  for (RunCursor c(l); !c.done(); c.Next()) {
    CopyBytes(base + c.offset(), in, l.run);
    in += l.run;
  }
}

}  // namespace weft::backends::ucx_plugin
