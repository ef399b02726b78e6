#include "backends/gloo/errors.hpp"

#include <gloo/common/error.h>
#include <gloo/common/logging.h>

namespace weft::backends::gloo_plugin {
namespace {

// Gloo reports its own timeouts only through the text of an IoException:
// "Timed out waiting Nms for recv operation to complete", "Application timeout caused pair
// closure" (the other pairs of a context after one wait timed out), "Connect timeout".
bool IsTimeoutText(const std::string& text) {
  return text.find("Timed out") != std::string::npos || text.find("timeout") != std::string::npos;
}

Failure Classify() {
  try {
    throw;
  } catch (const HostCallbackFailure& e) {
    return {e.status(), e.what()};
  } catch (const ::gloo::IoException& e) {
    const std::string text = e.what();
    return {IsTimeoutText(text) ? WEFT_ERR_TIMEOUT : WEFT_ERR_PEER_FAILURE, text};
  } catch (const ::gloo::EnforceNotMet& e) {
    return {WEFT_ERR_BACKEND, "Gloo: " + e.msg()};
  } catch (...) {  // the standard ones: the plugin kit's table, Gloo's own std::exceptions BACKEND
    return plugin_kit::ClassifyCurrentException(WEFT_ERR_BACKEND, "Gloo: ");
  }
}

}  // namespace

Failure ClassifyCurrentException() noexcept {
  try {
    return Classify();
  } catch (...) {  // building the message itself failed
    return {WEFT_ERR_OUT_OF_MEMORY, {}};
  }
}

Failure ClassifyException(const std::exception_ptr& error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (...) {
    return ClassifyCurrentException();
  }
}

const char* StatusName(weft_status_t status) {
  switch (status) {
    case WEFT_OK:
      return "WEFT_OK";
    case WEFT_IN_PROGRESS:
      return "WEFT_IN_PROGRESS";
    case WEFT_ERR_INVALID_ARGUMENT:
      return "WEFT_ERR_INVALID_ARGUMENT";
    case WEFT_ERR_INVALID_USAGE:
      return "WEFT_ERR_INVALID_USAGE";
    case WEFT_ERR_UNSUPPORTED:
      return "WEFT_ERR_UNSUPPORTED";
    case WEFT_ERR_NOT_AVAILABLE:
      return "WEFT_ERR_NOT_AVAILABLE";
    case WEFT_ERR_VERSION_MISMATCH:
      return "WEFT_ERR_VERSION_MISMATCH";
    case WEFT_ERR_OUT_OF_MEMORY:
      return "WEFT_ERR_OUT_OF_MEMORY";
    case WEFT_ERR_TIMEOUT:
      return "WEFT_ERR_TIMEOUT";
    case WEFT_ERR_PEER_FAILURE:
      return "WEFT_ERR_PEER_FAILURE";
    case WEFT_ERR_ABORTED:
      return "WEFT_ERR_ABORTED";
    case WEFT_ERR_SYSTEM:
      return "WEFT_ERR_SYSTEM";
    case WEFT_ERR_BACKEND:
      return "WEFT_ERR_BACKEND";
    case WEFT_ERR_PLUGIN:
      return "WEFT_ERR_PLUGIN";
    case WEFT_ERR_INTERNAL:
      return "WEFT_ERR_INTERNAL";
    default:
      return "unknown status";
  }
}

}  // namespace weft::backends::gloo_plugin
