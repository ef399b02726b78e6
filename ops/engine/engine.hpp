// propagate and enumerate (SPEC §5; docs/design/rules.md): among the candidates a rule's dim
// strategies give over the inputs' mesh, the cheapest under the planner's cost model, counting
// the redistribution of every input to the candidate's layout. Results are cached by (op,
// input layouts, the attributes the rule reads). Pure functions of their arguments: every rank
// picks the same strategy without talking. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/attributes.hpp"
#include "ops/engine/registry.hpp"
#include "placement/halo/halo_spec.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"
#include "placement/planner/state.hpp"

namespace weft::ops {

struct Strategy {
  std::string op;                             // canonical name
  std::vector<placement::LayoutPtr> inputs;   // where each input must be brought
  std::vector<placement::LayoutPtr> outputs;  // what the local kernel's results make up
  std::vector<double> input_costs;            // seconds to redistribute each input there
  double op_cost = 0;                         // the op's own communication (OpComm)
  // Windowed operators: per input, the halo to exchange into the padded block the kernel
  // reads (no dims: none; halo_need.hpp), and what the exchanges cost together.
  std::vector<placement::halo::HaloSpec> halos;
  double halo_cost = 0;
  double cost = 0;              // the input costs' sum + op_cost + halo_cost
  std::vector<int32_t> choice;  // per mesh dim, the dim strategy (-1: extent 1)
  std::string Describe() const;
};
using StrategyPtr = std::shared_ptr<const Strategy>;

class Engine {
 public:
  // `registry` must outlive the engine; registering more operators invalidates nothing (the
  // generation is in every key).
  explicit Engine(const Registry& registry, placement::planner::CostModel model = {});
  // Prices moves on each mesh with the model WEFT_TUNING_FILE gives it (planner::ModelFor),
  // as the redistribute plans on that mesh will be made; the library's registries use this.
  struct FromTuningFile {};
  Engine(const Registry& registry, FromTuningFile);

  Result<StrategyPtr> Propagate(std::string_view op, std::span<const placement::LayoutPtr> inputs,
                                const Attributes& attrs);
  // Every valid candidate, sorted by (cost, the fixed order); the first is Propagate's pick.
  Result<std::vector<StrategyPtr>> Enumerate(std::string_view op,
                                             std::span<const placement::LayoutPtr> inputs,
                                             const Attributes& attrs);

  // Past this many candidates (the product of the dim strategies over the mesh dims of extent
  // > 1) a propagate is refused rather than left to run for long.
  static constexpr int64_t kMaxCandidates = 1 << 16;
  // Up to this many combinations (every 1-D and 2-D mesh with up to 16 dim strategies)
  // propagate plans every one exactly and its pick is the cheapest; beyond, the estimate-led
  // search (Search), whose pick may cost a little more than the cheapest (near-ties the
  // estimate orders wrongly; docs/design/rules.md).
  static constexpr int64_t kExhaustiveUpTo = 256;
  static constexpr int64_t kExactCandidates = 3;
  // Cached strategies and redistribute costs, each (keys; a key may hold a few entries).
  static constexpr size_t kMaxCached = 4096;

 private:
  struct Entry {
    std::vector<placement::LayoutPtr> inputs;
    std::string op;
    uint64_t attr_key = 0;
    StrategyPtr best;
  };

  Result<std::vector<StrategyPtr>> Candidates(const OpDef& op,
                                              std::span<const placement::LayoutPtr> inputs,
                                              const Attributes& attrs, bool all);
  // One combination with exact costs; nullptr when it has no layout or no redistribute
  // reaches it.
  StrategyPtr Evaluate(const OpDef& op, std::span<const placement::LayoutPtr> inputs,
                       const RuleResult& r, std::vector<int32_t> choice);
  // The search: combinations by ascending estimate (estimate.hpp), the first kExactCandidates
  // valid ones and every later one whose estimate is within the best exact cost planned
  // exactly; the cheapest, ties to the earliest in the fixed order.
  StrategyPtr Search(const OpDef& op, std::span<const placement::LayoutPtr> inputs,
                     const RuleResult& r, const std::vector<int32_t>& free, int64_t count);
  Result<double> MoveCost(const placement::LayoutPtr& from, const placement::LayoutPtr& to);

  // The model of `layout`'s mesh: model_, or with FromTuningFile the tuned one (cached per
  // mesh; a file that cannot be read leaves model_, and the plans report the error).
  const placement::planner::CostModel& Model(const placement::Layout& layout);

  const Registry& registry_;
  placement::planner::CostModel model_;
  bool tuned_ = false;
  std::vector<std::pair<placement::MeshPtr, placement::planner::CostModel>> models_;
  std::mutex mu_;  // the caches below
  std::unordered_map<uint64_t, std::vector<Entry>> cache_;
  struct Move {
    placement::LayoutPtr from, to;
    double cost;
  };
  std::unordered_map<uint64_t, std::vector<Move>> moves_;
  // The planner's search states, shared by every MoveCost (most of them coincide).
  placement::planner::StateCache states_;
};

// FNV-1a of what makes a layout: mesh identity, shape, dtype, placements, resolved splits.
uint64_t LayoutFingerprint(const placement::Layout& l);

}  // namespace weft::ops
