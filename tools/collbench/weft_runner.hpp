// Runs one Case through Weft's public C ABI, blocking, over the world (mesh NULL).
#pragma once

#include <weft/weft.h>

#include <string>

#include "tools/collbench/cases.hpp"

namespace weft::collbench {

// "what: <status>: <weft_last_error>" for a failed Weft call.
inline std::string WeftError(const std::string& what, weft_status_t s) {
  return what + ": " + weft_status_string(s) + ": " + weft_last_error();
}

// The op's status; sendrecv posts its receive from the left neighbour as work, sends to the
// right one blocking, then waits (a ring of blocking sends alone could deadlock).
weft_status_t RunWeft(weft_context_t* ctx, Case& c);

}  // namespace weft::collbench
