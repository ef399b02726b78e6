// Operators declared by an einsum equation (SPEC §5 "declarative rules"; docs/design/rules.md):
// "bhqd,bhkd->bhqk" says which dims of the inputs and the output are the same index, and that
// is enough to know how the op may be sharded on one mesh dim: a letter sharded alike in every
// tensor that has it at full extent (an output letter: the output follows; a contracted one:
// partial sums, P(sum)), and P(sum) or P(avg) on one input that the op is linear in, with R on
// the others. The built-in `einsum` operator and the rules files both build on this.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/kernel.hpp"
#include "ops/engine/registry.hpp"
#include "ops/engine/rule.hpp"

namespace weft::ops {

struct EinsumSpec {
  std::vector<std::string> inputs;  // the letters of each input, in dim order
  std::string output;               // explicit, or the implicit form's (once-seen, sorted)
  std::vector<bool> linear;         // per input: P(sum)/P(avg) on it alone passes
  std::string unshardable;          // letters no strategy shards
  std::string equation;             // as written, for messages
};

// Parses "ab,bc->ac" (spaces allowed; no "->": the output is every letter seen once, in
// ASCII order, as numpy and torch have it). Every input is linear and every letter shardable
// until the caller says otherwise. Errors: kInvalidArgument "column N: ..." where N counts
// from `first_column` (a rules file passes where the equation starts on its line).
Result<EinsumSpec> ParseEinsum(std::string_view equation, size_t first_column = 1);

// The rule over `in` (checks ranks, extents — equal, or 1 to broadcast — and dtypes).
Status EinsumRule(const EinsumSpec& spec, std::string_view op, std::span<const TensorInfo> in,
                  RuleResult* r);

// The reference kernel: the sum over every contracted index of the inputs' product.
Status EinsumKernel(const EinsumSpec& spec, std::string_view op,
                    std::span<const DenseTensor> inputs, DenseTensor* out);

// An operator `name` whose rule and kernel are `spec`'s (inputs: as many as the equation has).
OpDef MakeEinsumOp(std::string name, EinsumSpec spec, std::string source);

}  // namespace weft::ops
