// A working plugin with only the mandatory ops: every collective is composed by the host from
// its send/recv. Named FAKE_NAME. Two decoys check that the host trusts a native op only when
// both its function and its capability bit are there: broadcast's bit without a function, and
// an allreduce function without its bit that fails if it is ever called.
#include "tests/backends/host/fakes/fake_core.hpp"

namespace {
weft_status_t Decoy(weft_bk_comm_t* comm, const void*, void*, uint64_t, DLDataType, int32_t,
                    const weft_bk_op_t*, weft_bk_request_t**) {
  const weft_bk_host_api_t* h = fake::HostOf(comm);
  h->set_error(h->host_data, "fake: allreduce called although its capability bit is clear");
  return WEFT_ERR_INTERNAL;
}
}  // namespace

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) {
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable(FAKE_NAME);
    t.capabilities |= WEFT_BK_CAP_BROADCAST;
    t.allreduce = Decoy;
    return t;
  }();
  return &table;
}
