// The host API a plugin gets at init(), wrapped so that errors are reported in one way.
#pragma once

#include <cstddef>
#include <string>

#include <weft/backend_plugin.h>

namespace weft::backends::gloo_plugin {

class Host {
 public:
  explicit Host(const weft_bk_host_api_t* api) : api_(api) {}

  const weft_bk_host_api_t& api() const { return *api_; }

  // Records `message` as the error of the calling thread and returns `status`, so that a
  // failing path reads `return host.Fail(WEFT_ERR_..., "...")`.
  weft_status_t Fail(weft_status_t status, const std::string& message) const;

  void Log(int32_t level, const std::string& message) const;

  // Host memory for staging; nullptr when the host has none to give.
  void* Alloc(size_t bytes) const;
  void Free(void* ptr) const;

 private:
  const weft_bk_host_api_t* api_;
};

}  // namespace weft::backends::gloo_plugin
