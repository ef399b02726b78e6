// One candidate strategy: a dim strategy per mesh dim, built into the layouts of every input
// and output (docs/design/rules.md "Expansion across mesh dims").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/rule.hpp"
#include "placement/layout.hpp"

namespace weft::ops {

struct Candidate {
  // Per mesh dim, the index of its dim strategy; -1 on mesh dims of extent 1 (all R there:
  // every placement holds the same data on them).
  std::vector<int32_t> choice;
  std::vector<placement::LayoutPtr> inputs, outputs;
};

// Checks what a rule returned against its inputs: a code per tensor in every strategy, shard
// dims inside their tensors, aligned dims that exist. kInternal naming the operator otherwise
// (a rule that returns garbage is the rule's bug, not the caller's).
Status CheckRuleResult(const char* op, std::span<const TensorInfo> inputs, const RuleResult& r);

// The layouts of `choice` over the inputs' mesh. A tensor dim sharded by the same mesh dims as
// the current layout of an aligned input dim takes that input's split (first in the aligned
// group's order), so explicit and uneven splits carry into the outputs exactly; otherwise the
// chunk rule. An output dim with a derived split (RuleResult::derived) takes the sizes made
// from the candidate's input layouts instead. kInvalidArgument when the combination has no
// layout (e.g. two Partial ops, a derived split that is not exact).
Result<Candidate> BuildCandidate(std::span<const placement::LayoutPtr> current, const RuleResult& r,
                                 std::vector<int32_t> choice);

}  // namespace weft::ops
