// A plugin whose native allreduce always fails: with a message for sum, without one for the
// other ops (to see what the host reports then). Everything else is composed by the host.
#include "tests/backends/host/fakes/fake_core.hpp"

namespace {
weft_status_t Allreduce(weft_bk_comm_t* comm, const void*, void*, uint64_t count, DLDataType,
                        int32_t op, const weft_bk_op_t*, weft_bk_request_t**) {
  if (op == WEFT_REDUCE_SUM) {
    const weft_bk_host_api_t* h = fake::HostOf(comm);
    const char* msg = count == 3 ? "fakeopfail: allreduce of 3 elements failed on purpose"
                                 : "fakeopfail: allreduce failed on purpose";
    h->set_error(h->host_data, msg);
  }
  return WEFT_ERR_INTERNAL;
}
}  // namespace

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) {
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable("fakeopfail");
    t.capabilities = WEFT_BK_CAP_ALLREDUCE;
    t.allreduce = Allreduce;
    return t;
  }();
  return &table;
}
