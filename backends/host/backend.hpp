// A backend plugin initialised for one context: the loaded table, the plugin's state, and the
// host API Weft hands it (logger, store, allocator, reduction kernels, error reporting).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "backends/host/plugin_loader.hpp"
#include "common/result.hpp"
#include "weft/backend_plugin.h"

namespace weft::backends {

namespace bootstrap {
class StoreClient;
}

class Backend {
 public:
  struct Args {
    int32_t rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
    int64_t timeout_ms = 0;
    bootstrap::StoreClient* store = nullptr;  // may be null for a world of one
  };
  static Result<std::unique_ptr<Backend>> Create(std::shared_ptr<LoadedPlugin> plugin,
                                                 const Args& args);
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const weft_backend_plugin_t& table() const { return plugin_->table(); }
  void* state() const { return state_; }
  const char* name() const { return plugin_->table().name; }
  // Turns a plugin's error return into a Status carrying the message it reported.
  Status Error(weft_status_t code, const char* op) const;

 private:
  Backend() = default;
  std::shared_ptr<LoadedPlugin> plugin_;
  weft_bk_host_api_t host_{};
  void* state_ = nullptr;
  bootstrap::StoreClient* store_ = nullptr;
  friend struct HostCallbacks;
};

// Thread-local message a plugin reported with host->set_error, taken (and cleared) once.
std::string TakePluginError();

}  // namespace weft::backends
