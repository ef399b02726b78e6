// The one Gloo TCP device of a Weft context (one listening address, one event-loop thread),
// shared by all its communicators.
#pragma once

#include <memory>

#include <gloo/transport/device.h>

#include "backends/gloo/host.hpp"

namespace weft::backends::gloo_plugin {

// Chooses the address to listen on, first match wins:
//   WEFT_GLOO_IFACE  an interface name (eth0): its address
//   WEFT_GLOO_HOST   a host name or address to bind
//   127.0.0.1        when every rank is on this host (local_world_size == world_size)
//   gethostname()    otherwise (must resolve to an address the other hosts can reach)
weft_status_t CreateTcpDevice(const Host& host, const weft_bk_init_args_t& args,
                              std::shared_ptr<::gloo::transport::Device>* device);

}  // namespace weft::backends::gloo_plugin
