// The backend plugin kind (SPEC §6.6): weft_backend_plugin_v1 tables, loaded through the one
// plugin loader (common/plugin_loader.hpp) and then masked (WEFT_BACKEND_DISABLE_OPS) and read
// for their parameter declarations. The loaded plugin owns the dlopen handle, so the plugin's
// code stays mapped exactly as long as something uses its table.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/plugin_loader.hpp"
#include "common/result.hpp"
#include "weft/backend_plugin.h"

namespace weft::backends {

// The backend kind: entry weft_backend_plugin_v<major>, files libweft-backend-<name>.so on
// WEFT_PLUGIN_PATH, then next to libweft; tables of ABI 1.0 and later (1.1's strided ops and
// 1.3's parameters absent from older ones).
extern const plugin::PluginKind kBackendKind;

class LoadedPlugin {
 public:
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  const weft_backend_plugin_t& table() const { return loaded_.table; }
  const std::string& path() const { return loaded_.module.path(); }
  // Capabilities after masking with WEFT_BACKEND_DISABLE_OPS.
  uint64_t capabilities() const { return loaded_.table.capabilities; }
  // The WEFT_* variables the plugin declares (ABI 1.3; none before), checked as sound: host
  // copies whose strings point into the plugin, valid while it is loaded.
  std::span<const weft_bk_param_t> params() const { return params_; }

 private:
  friend Result<std::shared_ptr<LoadedPlugin>> LoadBackendPlugin(const std::string&,
                                                                 const std::string&);
  LoadedPlugin() = default;
  plugin::LoadedTable<weft_backend_plugin_t> loaded_;  // a copy: the plugin's is never written
  std::vector<weft_bk_param_t> params_;
};

// `name_or_path`: a name ("gloo" → libweft-backend-gloo.so searched on WEFT_PLUGIN_PATH, then
// in the directory of libweft) or a path containing '/'. `disabled_ops`: a comma list of ops
// whose native implementation is hidden so the host composes them ("allreduce,broadcast" or
// "all"), for testing the compositions on a real transport; a word that names no op is
// kInvalidArgument. A malformed parameter declaration (CheckDescriptor, a name declared twice
// or also declared by libweft) is kPlugin naming the plugin and the parameter. The loader's
// own errors: common/plugin_loader.hpp.
Result<std::shared_ptr<LoadedPlugin>> LoadBackendPlugin(const std::string& name_or_path,
                                                        const std::string& disabled_ops);

// A backend named (letters, digits, '_', '-' and '.', at most kMaxPluginName of them) or given
// by path (with a '/': at most PATH_MAX - 1 bytes, each component at most NAME_MAX, no control
// characters); otherwise INVALID_ARGUMENT saying which limit, with `what` naming the value
// ("opts->backend").
using plugin::kMaxPluginName;
Status CheckPluginName(const std::string& name_or_path, const std::string& what);

// Where the loader looked for `name`, in order (for error messages and tests).
std::vector<std::string> PluginSearchPath(const std::string& name);

}  // namespace weft::backends
