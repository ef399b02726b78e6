#include "backends/gloo/host.hpp"

namespace weft::backends::gloo_plugin {
namespace {

// Staging buffers hold any dtype; 64 bytes also keeps them on their own cache lines.
constexpr size_t kStagingAlignment = 64;

}  // namespace

weft_status_t Host::Fail(weft_status_t status, const std::string& message) const {
  if (api_->set_error) api_->set_error(api_->host_data, message.c_str());
  return status;
}

void Host::Log(int32_t level, const std::string& message) const {
  if (api_->log) api_->log(api_->host_data, level, message.c_str());
}

void* Host::Alloc(size_t bytes) const {
  return api_->alloc(api_->host_data, bytes == 0 ? 1 : bytes, kStagingAlignment);
}

void Host::Free(void* ptr) const {
  if (ptr) api_->free(api_->host_data, ptr);
}

}  // namespace weft::backends::gloo_plugin
