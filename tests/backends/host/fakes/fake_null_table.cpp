// A v1 entry that returns no table.
#include "tests/backends/host/fakes/fake_core.hpp"

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) { return nullptr; }
