// Reading the knobs (Tuning, tuning_table.hpp) from the WEFT_UCX_* environment variables whose
// declarations (backends/ucx/params.hpp) hold the defaults; read once when the context starts.
#pragma once

#include <cstdint>
#include <string>

#include <weft/backend_plugin.h>

#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

// The polling budget: with a CPU per rank, 200 us, so that a reply a large copy away is caught
// without the wake-up cost of sleeping (tens of us on a VM); with more ranks than CPUs, none:
// the waiter goes straight to polling with sched_yield() in between (wait.cpp), since the
// rank it waits for may need this very CPU (measured, 4 ranks on 2 cores, 8-byte all-reduce:
// 72 us with a 20 us spin, 12 us without).
int64_t SpinMicroseconds(const Tuning& t, bool cpu_per_rank);
// Whether this host has a CPU (of those this process may run on) for each of its ranks.
bool CpuPerRank(int32_t ranks_on_host);

// Reads every WEFT_UCX_* threshold into *t (defaults where unset). False with *error naming
// the variable, its text and what it must be when one is malformed (the host checks the same
// before init, so this fails only where the plugin runs without that host).
bool ReadTuning(Tuning* t, std::string* error);

}  // namespace weft::backends::ucx_plugin
