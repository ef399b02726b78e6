// How exceptions from Gloo (and from the plugin's own callbacks running inside Gloo) become
// Weft statuses. No exception leaves the plugin: every path into Gloo catches and classifies.
//
//   gloo::IoException whose text says a wait timed out ("Timed out", "... timeout")
//                                        -> WEFT_ERR_TIMEOUT
//   any other gloo::IoException (connection closed or reset, read/write error)
//                                        -> WEFT_ERR_PEER_FAILURE (the caller names the peer)
//   StoreFailure (host store inside the rendezvous), ReduceFailure (host->reduce inside an
//   allreduce)                           -> the host's own status
//   gloo::EnforceNotMet, gloo::Exception, other std::exception -> WEFT_ERR_BACKEND
//   std::bad_alloc -> WEFT_ERR_OUT_OF_MEMORY, std::system_error -> WEFT_ERR_SYSTEM
//   anything else                        -> WEFT_ERR_INTERNAL
// (the last three and the std::exception fallback: the plugin kit's ClassifyCurrentException)
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

#include <weft/backend_plugin.h>

#include "common/plugin_kit/entry.hpp"

namespace weft::backends::gloo_plugin {

// A status and its message: the plugin kit's (common/plugin_kit/entry.hpp).
using Failure = plugin_kit::Failure;

// Carries a host callback's status out through Gloo's code, which is exception-neutral.
class HostCallbackFailure : public std::runtime_error {
 public:
  HostCallbackFailure(weft_status_t status, const std::string& what)
      : std::runtime_error(what), status_(status) {}
  weft_status_t status() const { return status_; }

 private:
  weft_status_t status_;
};

// Classifies the exception being handled. Call only inside a catch block.
Failure ClassifyCurrentException() noexcept;
Failure ClassifyException(const std::exception_ptr& error) noexcept;

// "WEFT_ERR_TIMEOUT" and so on, for messages; the plugin cannot call libweft.
const char* StatusName(weft_status_t status);

}  // namespace weft::backends::gloo_plugin
