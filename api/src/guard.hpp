// The boundary between the C ABI and the C++ inside: every extern "C" entry point runs its
// body through Guard, which turns Status values and stray exceptions into a weft_status_t
// and the thread-local last-error message. Nothing thrown ever crosses the ABI.
#pragma once

#include <cstddef>
#include <exception>
#include <new>
#include <string>

#include "common/status.hpp"
#include "weft/status.h"

namespace weft::api {

// This thread's last error message ("" before the first failure).
const char* LastError() noexcept;

// Records "fn: message" as this thread's last error and returns the status code.
weft_status_t Fail(const char* fn, const Status& status) noexcept;

template <class Body>
[[gnu::always_inline]] inline weft_status_t Guard(const char* fn, Body&& body) noexcept {
  try {
    const Status s = body();
    if (s.ok()) return WEFT_OK;
    if (s.code() == Code::kInProgress) return WEFT_IN_PROGRESS;
    return Fail(fn, s);
  } catch (const std::bad_alloc&) {
    return Fail(fn, Status(Code::kOutOfMemory, "out of memory"));
  } catch (const std::exception& e) {
    return Fail(fn, Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    return Fail(fn, Internal("unexpected non-standard exception"));
  }
}

// Options structs (SPEC §6.1): struct_size must cover at least `min_size` (the first version)
// and any bytes beyond `known_size` must be zero.
Status CheckStructSize(const void* opts, size_t known_size, size_t min_size, const char* name);

// Copies `text` to buf when it fits (len >= size + 1), always setting *needed.
Status WriteText(const std::string& text, char* buf, size_t len, size_t* needed);

}  // namespace weft::api

#define WEFT_REQUIRE(ptr) \
  if ((ptr) == nullptr) return ::weft::InvalidArgument(#ptr " is NULL")
