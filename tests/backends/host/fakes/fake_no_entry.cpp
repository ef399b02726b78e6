// A shared object with no weft_backend_plugin_v<N> entry, only look-alikes that the host must
// not accept.
#include "tests/backends/host/fakes/fake_core.hpp"

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin(void) { return nullptr; }
FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v10(void) { return nullptr; }
