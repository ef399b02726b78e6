// A plugin whose init refuses on purpose, reporting why through the host's set_error.
#include "tests/backends/host/fakes/fake_core.hpp"

namespace {
weft_status_t Init(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args, void**) {
  const char* msg = args->world_rank == 0 ? "fakeinitfail: refusing to start (rank 0 on purpose)"
                                          : "fakeinitfail: refusing to start";
  host->set_error(host->host_data, msg);
  return WEFT_ERR_BACKEND;
}
}  // namespace

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) {
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable("fakeinitfail");
    t.init = Init;
    return t;
  }();
  return &table;
}
