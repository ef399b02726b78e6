// What the collective algorithms (coll/) see of the transport: the one header they include
// from transport/. Everything else in transport/ (single copy, grants, pipes, path choice,
// the shared files, the State's components) is reached only through these: a collective is
// built from the communicator (comm.hpp), point-to-point steps (p2p.hpp) that are ordinary
// requests (request.hpp) advanced by the progress loop (wait.hpp), scratch memory reused across
// calls (scratch.hpp), the boards of this host (board.hpp, through the State) and whether a late
// peer's process still runs (process_state.hpp, for the board's slow waits).
#pragma once

#include "backends/ucx/transport/comm.hpp"
#include "backends/ucx/transport/p2p.hpp"
#include "backends/ucx/transport/process_state.hpp"
#include "backends/ucx/transport/request.hpp"
#include "backends/ucx/transport/scratch.hpp"
#include "backends/ucx/transport/wait.hpp"
