// The world of a multi-process GoogleTest program run under weftrun: one context created
// before the first case and destroyed after the last, every rank running every case in the
// same order.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "weft/weft.h"

namespace weft_test {

struct World {
  weft_context_t* ctx = nullptr;
  int32_t rank = 0, size = 1;
  bool expect_abort = false;  // a case aborts the context on purpose (bad buffers)
};
World& TheWorld();

// main() of such a program: creates the world (exit 2 if it cannot), runs the cases, and
// destroys the world (exit 3 if that fails, unless a case aborted it on purpose).
int RunWorldTests(int argc, char** argv);

}  // namespace weft_test

#define WEFT_OK_OR_FAIL(call)                                                  \
  do {                                                                         \
    const weft_status_t s_ = (call);                                           \
    ASSERT_EQ(s_, WEFT_OK) << #call << ": " << weft_status_string(s_) << " | " \
                           << weft_last_error();                               \
  } while (0)
