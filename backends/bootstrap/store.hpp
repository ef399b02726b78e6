// The bootstrap store in one include: server, client and per-communicator prefix views.
#pragma once

#include "backends/bootstrap/prefix_store.hpp"
#include "backends/bootstrap/store_client.hpp"
#include "backends/bootstrap/store_server.hpp"
#include "backends/bootstrap/store_types.hpp"
