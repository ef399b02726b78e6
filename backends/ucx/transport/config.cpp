#include "backends/ucx/transport/config.hpp"

#include <cstdlib>

namespace weft::backends::ucx_plugin {
namespace {

struct Default {
  const char* envs[3];  // what the user may have set instead (any one of them wins)
  const char* name;     // the setting for ucp_config_modify (no UCX_ prefix)
  const char* value;
};

// The shared-memory transports read MM_ERROR_HANDLING, or their own POSIX_/SYSV_ variant.
constexpr Default kDefaults[] = {
    {{"UCX_MM_ERROR_HANDLING", "UCX_POSIX_ERROR_HANDLING", "UCX_SYSV_ERROR_HANDLING"},
     "MM_ERROR_HANDLING",
     "y"},
    {{"UCX_KEEPALIVE_INTERVAL", nullptr, nullptr}, "KEEPALIVE_INTERVAL", "1s"},
};

bool UserSet(const Default& d) {
  for (const char* env : d.envs) {
    if (env == nullptr) continue;
    const char* v = std::getenv(env);
    if (v != nullptr && *v != '\0') return true;
  }
  return false;
}

}  // namespace

ucs_status_t ReadConfig(ucp_config_t** config, std::string* why) {
  ucs_status_t s = ucp_config_read(nullptr, nullptr, config);
  if (s != UCS_OK) {
    *why = std::string("ucp_config_read: ") + ucs_status_string(s);
    return s;
  }
  for (const Default& d : kDefaults) {
    if (UserSet(d)) continue;
    s = ucp_config_modify(*config, d.name, d.value);
    if (s != UCS_OK) {
      *why =
          std::string("ucp_config_modify ") + d.name + "=" + d.value + ": " + ucs_status_string(s);
      ucp_config_release(*config);
      *config = nullptr;
      return s;
    }
  }
  return UCS_OK;
}

}  // namespace weft::backends::ucx_plugin
