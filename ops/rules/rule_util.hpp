// What several families' rules share beyond the shape families' helpers (shape_util.hpp):
// broadcasting, dtype promotion, the strategies of a broadcast elementwise op, dim-list
// attributes, errors naming the operator.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/attributes.hpp"
#include "ops/engine/rule.hpp"

namespace weft::ops {

// The broadcast shape of `in` (NumPy rules); an error naming `op` and the shapes otherwise.
Result<std::vector<int64_t>> BroadcastShape(const std::string& op, std::span<const TensorInfo> in);

// The promoted dtype of `in`: bool < integers < floats < complex, then the widest.
DType PromotedDType(std::span<const TensorInfo> in);

// For each dim of the broadcast `shape`, the strategy sharding it on output `out` (a tensor
// index, after the inputs) and on every input that has it at full extent (broadcasting inputs
// stay R), the dims aligned. The all-R strategy first.
void AddBroadcastStrategies(std::span<const TensorInfo> in, const std::vector<int64_t>& shape,
                            RuleResult* r);

// The dims in attribute `attr` (an int list; absent: every dim), normalised as shape::Dim
// does, ascending and distinct; an error naming the operator and the attribute otherwise.
Result<std::vector<int32_t>> AttrDims(const std::string& op, const Attributes& attrs,
                                      const char* attr, size_t ndim);

// The dtype of index outputs (argmax, sort, topk), as PyTorch's.
inline const DType kIndexDType{kCodeInt, 64, 1};

// "operator 'op': why": rules' InvalidArgument messages.
Status OpError(const std::string& op, const std::string& why);

// `r`, its error prefixed with "operator 'op': " (attribute accessors name only the attribute).
template <class T>
Result<T> ForOp(const std::string& op, Result<T> r) {
  if (r.ok()) return r;
  return Status(r.status().code(), "operator '" + op + "': " + r.status().message());
}

}  // namespace weft::ops
