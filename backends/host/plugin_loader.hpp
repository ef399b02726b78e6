// Finds, opens and checks backend plugins (SPEC §6.6). The loader owns the dlopen handle, so
// the plugin's code stays mapped exactly as long as something uses its table.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "weft/backend_plugin.h"

namespace weft::backends {

class LoadedPlugin {
 public:
  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  const weft_backend_plugin_t& table() const { return table_; }
  const std::string& path() const { return path_; }
  // Capabilities after masking with WEFT_BACKEND_DISABLE_OPS.
  uint64_t capabilities() const { return table_.capabilities; }
  // The WEFT_* variables the plugin declares (ABI 1.3; none before), checked as sound: host
  // copies whose strings point into the plugin, valid while it is loaded.
  std::span<const weft_bk_param_t> params() const { return params_; }

 private:
  friend Result<std::shared_ptr<LoadedPlugin>> LoadBackendPlugin(const std::string&,
                                                                 const std::string&);
  LoadedPlugin() = default;
  void* handle_ = nullptr;
  std::string path_;
  weft_backend_plugin_t table_{};  // a copy: the plugin's table is never written
  std::vector<weft_bk_param_t> params_;
};

// `name_or_path`: a name ("gloo" → libweft-backend-gloo.so searched on WEFT_PLUGIN_PATH, then
// in the directory of libweft) or a path containing '/'. `disabled_ops`: a comma list of ops
// whose native implementation is hidden so the host composes them ("allreduce,broadcast" or
// "all"), for testing the compositions on a real transport; a word that names no op is
// kInvalidArgument. A malformed parameter declaration (CheckDescriptor, a name declared twice
// or also declared by libweft) is kPlugin naming the plugin and the parameter.
Result<std::shared_ptr<LoadedPlugin>> LoadBackendPlugin(const std::string& name_or_path,
                                                        const std::string& disabled_ops);

// A backend named (letters, digits, '_', '-' and '.', at most kMaxPluginName of them) or given
// by path (with a '/': at most PATH_MAX - 1 bytes, each component at most NAME_MAX, no control
// characters); otherwise INVALID_ARGUMENT saying which limit, with `what` naming the value
// ("opts->backend").
inline constexpr size_t kMaxPluginName = 64;
Status CheckPluginName(const std::string& name_or_path, const std::string& what);

// Where the loader looked for `name`, in order (for error messages and tests).
std::vector<std::string> PluginSearchPath(const std::string& name);

}  // namespace weft::backends
