#include "tools/weftrun/print_params.hpp"

#include <filesystem>

#include "backends/host/plugin_loader.hpp"
#include "common/params.hpp"
#include "tools/weftrun/output_relay.hpp"

namespace weft::tools {
namespace {

// Where a plugin named `name` is: as libweft's loader searches, then the directory this
// build put libweft and the plugins in (weftrun is not linked to libweft, so "next to
// libweft" is otherwise unknown to it). A path is taken as it is.
std::string Locate(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::vector<std::string> candidates = backends::PluginSearchPath(name);
  candidates.push_back(std::string(WEFTRUN_PLUGIN_DIR) + "/libweft-backend-" + name + ".so");
  for (const std::string& c : candidates)
    if (std::filesystem::exists(c)) return c;
  return name;  // the loader's error lists where it looked
}

}  // namespace

int PrintParams(const std::optional<std::string>& backend) {
  std::vector<params::Setting> host = params::HostSettings();
  bool ok = params::FirstError(host).ok();
  WriteAll(1, params::FormatListing("libweft:", host));
  std::string name = backend.value_or("");
  if (name.empty()) name = params::ValueOrDefault("WEFT_BACKEND").text;
  if (name.empty()) return ok ? 0 : 1;
  auto plugin = backends::LoadBackendPlugin(Locate(name), "");
  if (!plugin.ok()) {
    WriteAll(2, "weftrun: " + plugin.status().message() + "\n");
    return 1;
  }
  const std::vector<params::Setting> mine = params::ReadSettings((*plugin)->params());
  ok = ok && params::FirstError(mine).ok();
  WriteAll(1, "\n" + params::FormatListing(std::string((*plugin)->table().name) + " plugin (" +
                                               (*plugin)->path() + "):",
                                           mine));
  return ok ? 0 : 1;
}

}  // namespace weft::tools
