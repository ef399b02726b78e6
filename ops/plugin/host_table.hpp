// The host's side of weft_rules_plugin_v1: what a rule or kernel call and a register_ops call
// carry behind the ABI's opaque handles, and the function table handed to plugins.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/plugin_loader.hpp"
#include "ops/engine/attributes.hpp"
#include "ops/engine/registry.hpp"
#include "ops/engine/rule.hpp"
#include "weft/rules_plugin.h"

// One rule or kernel call (weft_rule_ctx_t).
struct weft_rule_ctx {
  const weft::ops::Attributes* attrs = nullptr;
  weft::ops::RuleResult* result = nullptr;  // NULL in a kernel call: the rule builders refuse
  int32_t n_inputs = 0;
  std::string error;
  bool failed = false;  // a host call failed: the call fails even if the plugin says WEFT_OK
  std::deque<std::string> strings;  // what attr_string and attr_ints hand out lives here
  std::deque<std::vector<int64_t>> lists;
};

// One register_ops call (weft_rules_registrar_t).
struct weft_rules_registrar {
  weft::ops::RegistryBatch batch;
  std::string source;  // "rule plugin NAME (PATH)"
  std::string name;    // the plugin's own name
  std::shared_ptr<const weft::plugin::PluginModule> module;
  std::string error;
  bool failed = false;
  bool open = true;  // registration calls after register_ops returned are refused
};

namespace weft::ops {

const weft_rules_host_t* RulesHostTable();

DType FromDL(DLDataType t);
DLDataType ToDL(DType t);

// `op` (checked by add_op) as an OpDef whose rule and kernel call into the plugin.
OpDef PluginOpDef(const weft_rule_op_t& op, const weft_rules_registrar& r);

}  // namespace weft::ops
