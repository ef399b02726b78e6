// The UCX configuration the plugin runs with: the user's UCX_* environment plus two defaults
// the failure model needs (SPEC §10), applied only where the user did not set them.
#pragma once

#include <string>

#include <ucp/api/ucp.h>

namespace weft::backends::ucx_plugin {

// Reads the configuration (ucp_config_read) and applies:
//  - MM_ERROR_HANDLING=y: UCX's shared-memory transports do not advertise peer-failure
//    handling by default, so endpoints created with UCP_ERR_HANDLING_MODE_PEER would fall back
//    to TCP on one host. With it they detect a dead peer through keepalive.
//  - KEEPALIVE_INTERVAL=1s (UCX's default is 20 s): a dead peer is noticed within about a
//    second even when no message is in flight to it.
// Set through ucp_config_modify rather than setenv, which would race with other threads
// reading the environment. On failure returns the UCX status and *why.
ucs_status_t ReadConfig(ucp_config_t** config, std::string* why);

}  // namespace weft::backends::ucx_plugin
