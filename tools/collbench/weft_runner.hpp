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

// In-place all-reduce of `count` values over the world (results of a row: times, counts);
// false with *error on failure.
// weft_plan_describe's text without its trailing newlines, or "?".
std::string PlanText(const weft_plan_t* plan);

bool AllreduceInPlace(weft_context_t* ctx, void* data, int64_t count, DLDataType dt, int op,
                      std::string* error);

// A world barrier; false with *error on failure.
bool Barrier(weft_context_t* ctx, std::string* error);

}  // namespace weft::collbench
