// What a weft_rules_t handle holds (weft/rules.h): the registry, the engine over it, and the
// lock that lets registrations (rules_register_api.cpp) run beside propagates.
#pragma once

#include <atomic>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "api/src/handles.hpp"
#include "ops/engine/engine.hpp"
#include "weft/halo.h"
#include "weft/rules.h"

namespace weft::api {

// A registry and the engine over it; the engine holds a reference to the registry, so both
// live and die together.
struct RulesObject {
  ops::Registry registry;
  ops::Engine engine{registry, ops::Engine::FromTuningFile{}};
  // Registrations take it exclusively; propagate, enumerate and listing share it.
  std::shared_mutex mu;
  // weft_rules_attach agreed on the registry with every rank of a context: from then on a
  // registration would break that agreement, and is refused.
  std::atomic<bool> attached{false};
};
struct StrategyObject {
  ops::StrategyPtr strategy;
  // Per input, its halo as the C descriptor's dims (weft_strategy_input_halo); the window
  // tables point into `strategy`, which this object keeps alive.
  std::vector<std::vector<weft_halo_dim_t>> halo_dims;
};

// A handle object for `s`, its halo descriptors made.
std::unique_ptr<StrategyObject> MakeStrategyObject(ops::StrategyPtr s);
template <>
struct HandleTraits<weft_rules> {
  using Object = RulesObject;
  static constexpr HandleKind kKind = HandleKind::kRules;
};
template <>
struct HandleTraits<weft_strategy> {
  using Object = StrategyObject;
  static constexpr HandleKind kKind = HandleKind::kStrategy;
};

}  // namespace weft::api
