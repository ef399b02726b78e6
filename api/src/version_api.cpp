// Versions, status names and the last-error message.
#include "api/src/guard.hpp"
#include "weft/status.h"

#define WEFT_STR_(x) #x
#define WEFT_STR(x) WEFT_STR_(x)

extern "C" {

uint32_t weft_abi_version(void) { return (WEFT_VERSION_MAJOR << 16) | WEFT_VERSION_MINOR; }

const char* weft_version_string(void) {
  return WEFT_STR(WEFT_VERSION_MAJOR) "." WEFT_STR(WEFT_VERSION_MINOR) "." WEFT_STR(
      WEFT_VERSION_PATCH) " (C++" WEFT_STR(__cplusplus) ", " __VERSION__ ")";
}

const char* weft_status_string(weft_status_t status) {
  switch (status) {
    case WEFT_OK:
      return "WEFT_OK: success";
    case WEFT_IN_PROGRESS:
      return "WEFT_IN_PROGRESS: the operation has not finished yet";
    case WEFT_ERR_INVALID_ARGUMENT:
      return "WEFT_ERR_INVALID_ARGUMENT: an argument is invalid";
    case WEFT_ERR_INVALID_USAGE:
      return "WEFT_ERR_INVALID_USAGE: the call is not valid now";
    case WEFT_ERR_UNSUPPORTED:
      return "WEFT_ERR_UNSUPPORTED: not supported here";
    case WEFT_ERR_NOT_AVAILABLE:
      return "WEFT_ERR_NOT_AVAILABLE: a resource is missing";
    case WEFT_ERR_VERSION_MISMATCH:
      return "WEFT_ERR_VERSION_MISMATCH: unsupported version";
    case WEFT_ERR_OUT_OF_MEMORY:
      return "WEFT_ERR_OUT_OF_MEMORY: out of memory";
    case WEFT_ERR_TIMEOUT:
      return "WEFT_ERR_TIMEOUT: the deadline passed";
    case WEFT_ERR_PEER_FAILURE:
      return "WEFT_ERR_PEER_FAILURE: a peer rank failed";
    case WEFT_ERR_ABORTED:
      return "WEFT_ERR_ABORTED: the operation was aborted";
    case WEFT_ERR_SYSTEM:
      return "WEFT_ERR_SYSTEM: an operating-system call failed";
    case WEFT_ERR_BACKEND:
      return "WEFT_ERR_BACKEND: the communication backend failed";
    case WEFT_ERR_PLUGIN:
      return "WEFT_ERR_PLUGIN: a plugin misbehaved";
    case WEFT_ERR_INTERNAL:
      return "WEFT_ERR_INTERNAL: internal error (a bug in Weft)";
    default:
      return "unknown weft status";
  }
}

const char* weft_last_error(void) { return weft::api::LastError(); }

}  // extern "C"
