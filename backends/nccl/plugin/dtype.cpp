#include "backends/nccl/plugin/dtype.hpp"

namespace weft::backends::nccl_plugin {
namespace {

// DLPack's bool code (weft/types.h names it WEFT_DLPACK_BOOL for headers that lack kDLBool).
constexpr uint8_t kBoolCode = 6;

// NCCL's reducible types by Weft's (code, bits).
struct TypeEntry {
  uint8_t code;
  uint8_t bits;
  ncclDataType_t type;
};
constexpr TypeEntry kTypes[] = {
    {kDLInt, 8, nccl::kInt8},       {kDLInt, 32, nccl::kInt32},
    {kDLInt, 64, nccl::kInt64},     {kDLUInt, 8, nccl::kUint8},
    {kDLUInt, 32, nccl::kUint32},   {kDLUInt, 64, nccl::kUint64},
    {kDLFloat, 16, nccl::kFloat16}, {kDLFloat, 32, nccl::kFloat32},
    {kDLFloat, 64, nccl::kFloat64}, {kDLBfloat, 16, nccl::kBfloat16},
};

bool MapType(DLDataType t, ncclDataType_t* out) {
  for (const TypeEntry& e : kTypes) {
    if (e.code == t.code && e.bits == t.bits) {
      *out = e.type;
      return true;
    }
  }
  return false;
}

bool MapOp(int32_t op, ncclRedOp_t* out) {
  switch (op) {
    case WEFT_REDUCE_SUM:
      *out = nccl::kSum;
      return true;
    case WEFT_REDUCE_PROD:
      *out = nccl::kProd;
      return true;
    case WEFT_REDUCE_MAX:
      *out = nccl::kMax;
      return true;
    case WEFT_REDUCE_MIN:
      *out = nccl::kMin;
      return true;
    default:  // avg reaches a plugin as a float64 sum (the host composes it)
      return false;
  }
}

}  // namespace

bool MapReduction(DLDataType t, int32_t op, NcclReduction* out) {
  if (t.lanes > 1) return false;
  if (t.code == kBoolCode && t.bits == 8) {
    // Bool holds 0 or 1: or is max, and is min.
    out->type = nccl::kUint8;
    out->op = (op == WEFT_REDUCE_SUM || op == WEFT_REDUCE_MAX) ? nccl::kMax : nccl::kMin;
    out->per_element = 1;
    return op == WEFT_REDUCE_SUM || op == WEFT_REDUCE_MAX || op == WEFT_REDUCE_PROD ||
           op == WEFT_REDUCE_MIN;
  }
  if (t.code == kDLComplex && op == WEFT_REDUCE_SUM && (t.bits == 64 || t.bits == 128)) {
    out->type = t.bits == 64 ? nccl::kFloat32 : nccl::kFloat64;
    out->op = nccl::kSum;
    out->per_element = 2;
    return true;
  }
  out->per_element = 1;
  return MapType(t, &out->type) && MapOp(op, &out->op);
}

}  // namespace weft::backends::nccl_plugin
