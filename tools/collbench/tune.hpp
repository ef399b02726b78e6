// collbench tune (issue 26 item 2): measures what the planner and the UCX backend would
// otherwise guess, and writes it as a tuning file (docs/tuning.md) for WEFT_TUNING_FILE:
//  - each rank's place (collbench topo's discovery) and so the link classes the job has:
//    same L3, same NUMA node, across NUMA nodes, across hosts;
//  - per class, one pair of ranks ping-pongs at sizes from 8 bytes up, and alpha-beta is
//    fitted with its error (tune_fit.hpp); a stream of large messages gives the bandwidth;
//  - the local copy and reduce speeds of rank 0;
//  - on the ucx backend, the crossovers between its algorithms (tune_crossover.cpp), written
//    as the WEFT_UCX_* thresholds.
#pragma once

#include <weft/weft.h>

#include <cstdint>

namespace weft::collbench {

// `collbench tune [--out FILE] [--max BYTES] [--budget SECONDS] [--crossovers 0|1]` under a
// launcher; rank 0 prints the figures and writes FILE. Returns the exit status.
int RunTune(weft_context_t* ctx, int32_t rank, int32_t nranks, int argc, char** argv);

}  // namespace weft::collbench
