// The plugin kit's entry trampolines: no exception crosses a plugin's C ABI (SPEC §6.6). Every
// function of a plugin table runs its C++ inside Guard(), which turns whatever escapes into a
// weft_status_t and, where the plugin has somewhere to say it (host->set_error), a message.
// Header-only, depending on the plugin ABI alone, so that any plugin may include it.
//
//   std::bad_alloc                 -> WEFT_ERR_OUT_OF_MEMORY, "out of memory"
//   std::system_error              -> WEFT_ERR_SYSTEM, its what()
//   other std::exception           -> `other` (WEFT_ERR_INTERNAL unless the plugin says, e.g.
//                                     WEFT_ERR_BACKEND for its library's), prefix + what()
//   anything else                  -> WEFT_ERR_INTERNAL, "unknown exception"
// Building the message can itself throw: then WEFT_ERR_OUT_OF_MEMORY with no message.
#pragma once

#include <new>
#include <string>
#include <system_error>
#include <utility>

#include <weft/backend_plugin.h>

namespace weft::plugin_kit {

struct Failure {
  weft_status_t status = WEFT_OK;
  std::string message;
};

namespace entry_detail {
inline Failure Classify(weft_status_t other, const char* prefix) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return {WEFT_ERR_OUT_OF_MEMORY, "out of memory"};
  } catch (const std::system_error& e) {
    return {WEFT_ERR_SYSTEM, e.what()};
  } catch (const std::exception& e) {
    return {other, std::string(prefix) + e.what()};
  } catch (...) {
    return {WEFT_ERR_INTERNAL, "unknown exception"};
  }
}
}  // namespace entry_detail

// Classifies the exception being handled (call only inside a catch block) as the table above.
inline Failure ClassifyCurrentException(weft_status_t other = WEFT_ERR_INTERNAL,
                                        const char* prefix = "") noexcept {
  try {
    return entry_detail::Classify(other, prefix);
  } catch (...) {  // the message could not be built
    return {WEFT_ERR_OUT_OF_MEMORY, {}};
  }
}

// Runs `body` (returning weft_status_t); an exception becomes classify()'s Failure (a callable
// run inside the catch block, ClassifyCurrentException by default), handed to report() (which
// returns the status to give back, e.g. after host->set_error) when there is one.
template <typename Body, typename Report, typename Classify>
weft_status_t Guard(Body&& body, Report&& report, Classify&& classify) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (...) {
    Failure f = classify();
    try {
      return report(f);
    } catch (...) {  // the report itself failed: the status still goes back
      return f.status;
    }
  }
}

template <typename Body, typename Report>
weft_status_t Guard(Body&& body, Report&& report) noexcept {
  return Guard(std::forward<Body>(body), std::forward<Report>(report),
               [] { return ClassifyCurrentException(); });
}

// No one to tell: the status alone.
template <typename Body>
weft_status_t Guard(Body&& body) noexcept {
  return Guard(std::forward<Body>(body), [](const Failure& f) { return f.status; });
}

// For the table's void functions (finalize, abort, comm_destroy, request_free): there is no
// status to give, so an exception is dropped; what was done before it stays done.
template <typename Body>
void GuardVoid(Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
  } catch (...) {
  }
}

// Entry<F>::Call: a function with F's exact signature, noexcept, that runs F inside Guard(), for
// filling a plugin table with functions that may throw.
template <auto F>
struct Entry;
template <typename... A, weft_status_t (*F)(A...)>
struct Entry<F> {
  static weft_status_t Call(A... a) noexcept {
    return Guard([&]() -> weft_status_t { return F(a...); });
  }
};

}  // namespace weft::plugin_kit
