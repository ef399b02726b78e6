// A v1 entry whose table is not a v1.0 table: built with FAKE_ABI_MAJOR (another major) or
// with FAKE_STRUCT_SIZE (fewer bytes than ABI 1.0's table).
#include "tests/backends/host/fakes/fake_core.hpp"

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) {
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable("faketable");
#ifdef FAKE_ABI_MAJOR
    t.abi_version = (FAKE_ABI_MAJOR << 16) | 7u;
#endif
#ifdef FAKE_STRUCT_SIZE
    t.struct_size = FAKE_STRUCT_SIZE;
#endif
    return t;
  }();
  return &table;
}
