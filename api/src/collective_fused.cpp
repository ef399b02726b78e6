#include "api/src/collective_fused.hpp"

#include <cstring>

#include "device/host/reduce/reduce.hpp"

namespace weft::api::check {
namespace {

DType TypeOf(const Record& r) { return DType{r.dtype_code, r.dtype_bits, r.dtype_lanes}; }

bool Reduces(const Record& r) { return r.op >= 0 && r.op != static_cast<int32_t>(ReduceOp::kAvg); }

// out = member 0's block, then reduced with each later member's, in member order.
Status ReduceBlocks(const Record& r, std::span<const Slot> all, uint64_t offset, void* out) {
  const uint64_t bytes = r.count * ItemSize(TypeOf(r));
  if (bytes) std::memcpy(out, all[0].payload + offset, bytes);
  for (size_t m = 1; m < all.size(); ++m)
    WEFT_RETURN_IF_ERROR(device::host::ReduceInto(TypeOf(r), static_cast<ReduceOp>(r.op), out,
                                                  all[m].payload + offset, r.count));
  return Status::Ok();
}

}  // namespace

uint64_t CarriedBytes(const Record& r, int32_t size) {
  const uint64_t item = static_cast<uint64_t>(ItemSize(TypeOf(r)));
  const uint64_t n = static_cast<uint64_t>(size);
  // Counts beyond the room are rejected before any product can overflow.
  if (r.count > kPayloadBytes) return kNotCarried;
  uint64_t bytes = kNotCarried;
  switch (static_cast<Kind>(r.kind)) {
    case Kind::kBarrier:
      return 0;
    case Kind::kAllreduce:
      if (Reduces(r)) bytes = r.count * item;
      break;
    case Kind::kBroadcast:
    case Kind::kAllgather:
      bytes = r.count * item;
      break;
    case Kind::kAlltoall:
      bytes = n * r.count * item;
      break;
    case Kind::kReduceScatter:
      if (Reduces(r)) bytes = n * r.count * item;
      break;
    default:
      break;
  }
  return bytes <= kPayloadBytes ? bytes : kNotCarried;
}

void FillPayload(const Call& call, int32_t size, Slot* mine) {
  const uint64_t bytes = CarriedBytes(mine->record, size);
  if (bytes == kNotCarried || bytes == 0) return;
  if (call.kind == Kind::kBroadcast && mine->record.index != call.root) return;
  std::memcpy(mine->payload, call.send, bytes);
}

Status CompleteCarried(const Call& call, int32_t index, std::span<const Slot> all) {
  const Record& r = all[index].record;
  const uint64_t block = r.count * ItemSize(TypeOf(r));
  char* out = static_cast<char*>(call.recv);
  switch (call.kind) {
    case Kind::kAllreduce:
      return ReduceBlocks(r, all, 0, out);
    case Kind::kReduceScatter:
      return ReduceBlocks(r, all, index * block, out);
    case Kind::kBroadcast:
      if (index != call.root && block) std::memcpy(out, all[call.root].payload, block);
      return Status::Ok();
    case Kind::kAllgather:
      for (size_t m = 0; m < all.size() && block; ++m)
        std::memcpy(out + m * block, all[m].payload, block);
      return Status::Ok();
    case Kind::kAlltoall:
      for (size_t m = 0; m < all.size() && block; ++m)
        std::memcpy(out + m * block, all[m].payload + index * block, block);
      return Status::Ok();
    default:
      return Status::Ok();  // barrier: the exchange was all of it
  }
}

}  // namespace weft::api::check
