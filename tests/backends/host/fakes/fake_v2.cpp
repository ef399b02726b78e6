// A plugin built for a future plugin ABI, v2: it exports only weft_backend_plugin_v2, so the
// host must name both versions and refuse it without calling anything.
#include "tests/backends/host/fakes/fake_core.hpp"

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v2(void) {
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable("fakev2");
    t.abi_version = 2u << 16;
    return t;
  }();
  return &table;
}
