#include "device/host/reduce/reduce_args.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace weft::device::host::detail {

namespace {
std::string OpText(ReduceOp op) {
  const auto v = static_cast<int32_t>(op);
  if (v >= 0 && v < kNumReduceOps) return ReduceOpName(op);
  return "op " + std::to_string(v);
}
}  // namespace

Status CheckElementOp(const char* fn, DType t, ReduceOp op) {
  // The reason is built only for a pair that fails (this runs on every call).
  if (!ReduceValidFor(op, t, nullptr)) {
    std::string why;
    ReduceValidFor(op, t, &why);
    return InvalidArgument(std::string(fn) + ": cannot reduce " + DTypeName(t) + " with " +
                           OpText(op) + ": " + why);
  }
  if (op == ReduceOp::kAvg) {
    return InvalidArgument(std::string(fn) + ": avg of " + DTypeName(t) +
                           " is not an element kernel; compose it from WidenToAccumulator, a "
                           "sum over AvgAccumulatorType and NarrowFromAccumulatorDividing");
  }
  return Status::Ok();
}

Status BufferError(const char* fn, const char* name, const void* p, DType t, uint64_t count) {
  const auto item = static_cast<uint64_t>(ItemSize(t));
  if (item != 0 && count > std::numeric_limits<uint64_t>::max() / item) {
    return InvalidArgument(std::string(fn) + ": count " + std::to_string(count) + " of " +
                           DTypeName(t) + " overflows the address space");
  }
  if (p == nullptr && count != 0) {
    return InvalidArgument(std::string(fn) + ": " + name + " is NULL with count " +
                           std::to_string(count));
  }
  return Internal(std::string(fn) + ": " + name + " passed its check");  // not reached
}

bool Overlaps(const void* x, uint64_t x_bytes, const void* y, uint64_t y_bytes) {
  const auto a = reinterpret_cast<uintptr_t>(x);
  const auto b = reinterpret_cast<uintptr_t>(y);
  return x_bytes != 0 && y_bytes != 0 && a < b + y_bytes && b < a + x_bytes;
}

}  // namespace weft::device::host::detail
