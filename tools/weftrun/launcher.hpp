// The supervisor: starts the ranks, relays their output, forwards signals, stops everything
// when one rank fails or the time is up.
#pragma once

#include "tools/weftrun/options.hpp"

namespace weft::tools {

// Runs the job to completion and returns weftrun's exit status (documented in UsageText()):
// whatever first ends the job decides it. Writes the ranks' output to stdout and stderr and
// its own messages, prefixed "weftrun: ", to stderr.
int RunJob(const Options& opts);

}  // namespace weft::tools
