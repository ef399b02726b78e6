#include "api/src/tensor_check.hpp"

#include <algorithm>
#include <vector>

#include "api/src/byte_range.hpp"

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
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost &&
      t->device.device_type != kDLCUDA)
    return InvalidArgument(n + "->device.device_type is " + Str(t->device.device_type) +
                           ": plans move CPU, CUDA host and CUDA device memory");
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
  // Row-major strides where none are given, and for dims of one element, whose stride moves
  // nothing (so that no later product of it can overflow).
  int64_t compact = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    v.strides[d] = t->strides && t->shape[d] > 1 ? t->strides[d] : compact;
    if (__builtin_mul_overflow(compact, t->shape[d], &compact))
      return InvalidArgument(n + " holds " + what +
                             ", which has more elements than fit in 64 bits");
  }
  const int64_t numel = compact;
  if (!t->data && numel > 0) return InvalidArgument(n + "->data is NULL");
  if (numel == 0) return v;  // touches no memory: data stays null
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
  int64_t span = 1;  // elements covered by the dims so far: at last, the whole reach
  for (int32_t d : dims) {
    if (output && v.strides[d] < span)
      return InvalidArgument(n + "->strides[" + Str(d) + "] is " + Str(v.strides[d]) +
                             ": the output's elements overlap (it needs at least " + Str(span) +
                             ")");
    int64_t reach = 0, bytes = 0;  // strides[d] * (shape[d] - 1) + span, in elements and bytes
    if (__builtin_mul_overflow(v.strides[d], t->shape[d] - 1, &reach) ||
        __builtin_add_overflow(reach, span, &reach) ||
        __builtin_mul_overflow(reach, v.item, &bytes))
      return InvalidArgument(n + "->strides[" + Str(d) + "] is " + Str(v.strides[d]) +
                             ": the tensor would reach more than 2^63 bytes");
    span = std::max(span, reach);
  }
  const auto bytes = static_cast<uint64_t>(span * v.item);  // checked above (or one element)
  if (!ByteRangeOk(t, bytes)) return ByteRangeError(t, n.c_str(), bytes);
  v.data = static_cast<char*>(t->data) + t->byte_offset;
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
