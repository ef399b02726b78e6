// What the shape families (view.cpp, concat.cpp) share: dim attributes read the Python way
// (negative counts from the end), the Partial codes that pass through ops that only move or
// select values, and the row-major helpers their reference kernels run on any local block.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/kernel.hpp"
#include "ops/engine/rule.hpp"

namespace weft::ops::shape {

// `value` as a dim of a tensor with `ndim` dims (-1 is the last); an error naming the operator
// and attribute when out of range.
Result<int32_t> Dim(const std::string& op, const char* attr, int64_t value, int32_t ndim);

int64_t Count(std::span<const int64_t> shape);

// Adds, for each of sum, avg, max and min, the strategy with that Partial on the inputs listed
// in `partial` (the others R) and on every output: exact for ops that move or select values
// (a concatenation of partial sums is the partial sum of the concatenations).
void AddPartials(RuleResult* r, size_t inputs, const std::vector<size_t>& partial);

// The block of `t` from `begin` for `length` along `dim`.
DenseTensor Slice(const DenseTensor& t, int32_t dim, int64_t begin, int64_t length);
// `parts` (equal shapes but on `dim`) laid end to end along `dim`.
DenseTensor Concat(std::span<const DenseTensor> parts, int32_t dim);
// Output dim j is input dim perm[j].
DenseTensor Permute(const DenseTensor& t, std::span<const int32_t> perm);
// Calls `f` with every index of `shape`, row-major.
void ForEach(std::span<const int64_t> shape, const std::function<void(const int64_t*)>& f);
// The row-major offset of `index` in `shape`.
int64_t Offset(std::span<const int64_t> shape, const int64_t* index);

// The output shapes a kernel writes: the call's when given (a rank's local shapes), else the
// rule's on the global inputs (one process).
Result<std::vector<std::vector<int64_t>>> OutputShapes(const KernelCall& call, const RuleFn& rule);

}  // namespace weft::ops::shape
