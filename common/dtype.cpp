#include "common/dtype.hpp"

#include <string>

namespace weft {

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAvg:
      return "avg";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kProd:
      return "prod";
  }
  return "?";
}

bool IsIntegral(DType t) {
  return (t.code == kCodeInt || t.code == kCodeUInt) && t.lanes == 1 &&
         (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64);
}

bool IsReducible(DType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kCodeInt:
    case kCodeUInt:
      return IsIntegral(t);
    case kCodeFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kCodeBfloat:
      return t.bits == 16;
    case kCodeComplex:
      return t.bits == 64 || t.bits == 128;
    case kCodeBool:
      return t.bits == 8;
    default:
      return false;
  }
}

namespace {
bool Fail(std::string* why, const char* reason) {
  if (why) *why = reason;
  return false;
}
}  // namespace

bool ReduceValidFor(ReduceOp op, DType t, std::string* why) {
  if (static_cast<int32_t>(op) < 0 || static_cast<int32_t>(op) >= kNumReduceOps)
    return Fail(why, "unknown reduce op");
  if (!IsReducible(t)) return Fail(why, "Weft has no reduction kernel for this dtype");
  if (op == ReduceOp::kAvg && (IsIntegral(t) || t.code == kCodeBool))
    return Fail(why, "avg is defined only for floating-point and complex dtypes");
  if ((op == ReduceOp::kMax || op == ReduceOp::kMin) && t.code == kCodeComplex)
    return Fail(why, "complex numbers have no order, so max/min are undefined");
  return true;
}

bool PartialValidFor(ReduceOp op, DType t, std::string* why) {
  if (!ReduceValidFor(op, t, why)) return false;
  if ((op == ReduceOp::kSum || op == ReduceOp::kProd) && t.code == kCodeBool)
    return Fail(why, "a bool Partial allows max (or) and min (and) only");
  return true;
}

std::string DTypeName(DType t) {
  if (t.lanes == 1) {
    const std::string b = std::to_string(t.bits);
    switch (t.code) {
      case kCodeInt:
        return "int" + b;
      case kCodeUInt:
        return "uint" + b;
      case kCodeFloat:
        return "float" + b;
      case kCodeBfloat:
        return "bfloat" + b;
      case kCodeComplex:
        return "complex" + b;
      case kCodeBool:
        if (t.bits == 8) return "bool";
        break;
      default:
        break;
    }
  }
  return "dtype(code=" + std::to_string(t.code) + ",bits=" + std::to_string(t.bits) +
         ",lanes=" + std::to_string(t.lanes) + ")";
}

}  // namespace weft
