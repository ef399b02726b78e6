// What a weft_rules_t handle holds (weft/rules.h): the registry, the engine over it, and the
// lock that lets registrations (rules_register_api.cpp) run beside propagates.
#pragma once

#include <atomic>
#include <shared_mutex>

#include "api/src/handles.hpp"
#include "ops/engine/engine.hpp"
#include "weft/rules.h"

namespace weft::api {

// A registry and the engine over it; the engine holds a reference to the registry, so both
// live and die together.
struct RulesObject {
  ops::Registry registry;
  ops::Engine engine{registry};
  // Registrations take it exclusively; propagate, enumerate and listing share it.
  std::shared_mutex mu;
  // weft_rules_attach agreed on the registry with every rank of a context: from then on a
  // registration would break that agreement, and is refused.
  std::atomic<bool> attached{false};
};
struct StrategyObject {
  ops::StrategyPtr strategy;
};
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
