// The store's port: a TCP port on 127.0.0.1 that is free right now.
#pragma once

#include "common/result.hpp"

namespace weft::tools {

// Binds 127.0.0.1:0, reads the port the kernel chose and closes the socket. Another process
// could take the port before rank 0 binds it; for a single-node launcher that rare race is
// accepted (the run then fails loudly at store start-up and can be repeated).
Result<int> PickFreePort();

}  // namespace weft::tools
