// Rule plugins (weft/rules_plugin.h; docs/design/rules.md "Rule plugins"): the kind the one
// plugin loader (common/plugin_loader.hpp) opens them as, and the load that turns a plugin's
// registrations into a RegistryBatch — its rule and kernel callbacks wrapped as RuleFn and
// KernelFn that keep the plugin mapped as long as an operator of it is registered.
#pragma once

#include <string>

#include "common/plugin_loader.hpp"
#include "common/result.hpp"
#include "ops/engine/registry.hpp"

namespace weft::ops {

extern const plugin::PluginKind kRulesPluginKind;

// Loads `name_or_path` (a name is looked for as libweft-rules-NAME.so on WEFT_RULES_PATH, then
// next to libweft) and adds what its register_ops registers, all or nothing. Errors: the
// loader's (kInvalidArgument, kNotAvailable, kVersionMismatch, kPlugin); kPlugin when
// register_ops fails or registers something malformed, with the plugin's message; the
// registry's own (a name taken).
Status LoadRulesPlugin(Registry& registry, const std::string& name_or_path);

}  // namespace weft::ops
