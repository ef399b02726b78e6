// A v1 table lacking the mandatory op FAKE_MISSING (init, recv, comm_destroy, ...).
#include "tests/backends/host/fakes/fake_core.hpp"

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) {
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable("fakemissing");
    t.FAKE_MISSING = nullptr;
    return t;
  }();
  return &table;
}
