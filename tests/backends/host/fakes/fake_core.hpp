// Shared plumbing of the fake backend plugins the loader tests build: the mandatory ops of
// plugin ABI v1 and nothing else, so that each fake only states how it differs. Point-to-point
// works to oneself (in memory) and between processes (through the host's store), which is
// all the host needs to compose every collective.
#pragma once

#include "weft/backend_plugin.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace fake {

// A valid v1 table named `name` with every mandatory op and no collective (capabilities 0).
weft_backend_plugin_t MandatoryTable(const char* name);

// The host API a communicator's plugin state was initialised with (for reporting errors).
const weft_bk_host_api_t* HostOf(weft_bk_comm_t* comm);

}  // namespace fake
