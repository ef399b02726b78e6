#include "api/src/tensor_check.hpp"

#include <algorithm>
#include <vector>

namespace weft::api {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

}  // namespace

using placement::executor::TensorView;

Result<TensorView> CheckView(const DLTensor* t, const std::string& n, DType dtype,
                             const placement::planner::Box& block, const std::string& what,
                             bool output) {
  if (!t) return InvalidArgument(n + " is NULL");
  const DType dt{t->dtype.code, t->dtype.bits, t->dtype.lanes};
  if (!(dt == dtype))
    return InvalidArgument(n + "->dtype is " + DTypeName(dt) + " but the layout's is " +
                           DTypeName(dtype));
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost)
    return InvalidArgument(n + "->device.device_type is " + Str(t->device.device_type) +
                           ": plans move CPU and CUDA host memory");
  TensorView v;
  v.item = ItemSize(dt);
  v.block = block;
  if (t->ndim != block.ndim)
    return InvalidArgument(n + "->ndim is " + Str(t->ndim) + " but the layout has " +
                           Str(block.ndim) + " dims");
  if (t->ndim > 0 && !t->shape) return InvalidArgument(n + "->shape is NULL");
  for (int32_t d = 0; d < t->ndim; ++d)
    if (t->shape[d] != v.block.shape[d])
      return InvalidArgument(n + "->shape[" + Str(d) + "] is " + Str(t->shape[d]) + " but " + what +
                             " has " + Str(v.block.shape[d]));
  int64_t compact = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    v.strides[d] = t->strides ? t->strides[d] : compact;
    compact *= t->shape[d];
  }
  const int64_t numel = compact;
  if (!t->data && numel > 0) return InvalidArgument(n + "->data is NULL");
  if (numel > 0) {
    // Dims that span more than one element, by stride: each must step past all the inner ones.
    std::vector<int32_t> dims;
    for (int32_t d = 0; d < t->ndim; ++d) {
      if (t->shape[d] <= 1) continue;
      if (v.strides[d] < 0)
        return InvalidArgument(n + "->strides[" + Str(d) + "] is " + Str(v.strides[d]) +
                               " but must be >= 0");
      dims.push_back(d);
    }
    std::sort(dims.begin(), dims.end(),
              [&](int32_t a, int32_t b) { return v.strides[a] < v.strides[b]; });
    int64_t span = 1;  // elements covered by the dims so far
    for (int32_t d : dims) {
      if (output && v.strides[d] < span)
        return InvalidArgument(n + "->strides[" + Str(d) + "] is " + Str(v.strides[d]) +
                               ": the output's elements overlap (it needs at least " + Str(span) +
                               ")");
      span = std::max(span, v.strides[d] * (t->shape[d] - 1) + span);
    }
  }
  v.data = numel > 0 ? static_cast<char*>(t->data) + t->byte_offset : nullptr;
  return v;
}

// Bytes [lo, hi) a view can touch.
std::pair<const char*, const char*> Extent(const TensorView& v) {
  if (!v.data || v.block.Empty()) return {nullptr, nullptr};
  int64_t last = 0;
  for (int32_t d = 0; d < v.block.ndim; ++d) last += v.strides[d] * (v.block.shape[d] - 1);
  return {v.data, v.data + (last + 1) * v.item};
}

bool Overlap(const TensorView& a, const TensorView& b) {
  const auto x = Extent(a), y = Extent(b);
  return x.first && y.first && x.first < y.second && y.first < x.second;
}

}  // namespace weft::api
