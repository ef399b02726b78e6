// What the in-process benchmarks share: a world of one on the self backend, whatever the
// environment says, and a fatal check of every setup call (a benchmark that cannot set up
// has nothing to measure).
#pragma once

#include <cstdio>
#include <cstdlib>

#include "weft/weft.h"

namespace weft::bench {

inline void CheckOk(weft_status_t s, const char* what) {
  if (s == WEFT_OK) return;
  std::fprintf(stderr, "%s failed: %s\n", what, weft_last_error());
  std::exit(1);
}

inline weft_context_t* CreateSelfWorld() {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = "self";
  weft_context_t* ctx = nullptr;
  CheckOk(weft_context_create(&opts, &ctx), "weft_context_create");
  return ctx;
}

}  // namespace weft::bench
