// A fire-and-forget tagged send of a small control message (descriptor, ack) that the plugin
// owns: UCX may hold on to the bytes until it calls back, so the object lives until then.
#pragma once

#include <memory>

#include <ucp/api/ucp.h>

namespace weft::backends::ucx_plugin {

// Sends the first `bytes` of `*msg` under `tag`; the object is freed when UCX is done with it.
// Returns UCS_OK or the error of posting.
template <typename T>
ucs_status_t SendOwned(ucp_ep_h ep, std::unique_ptr<T> msg, uint64_t tag,
                       size_t bytes = sizeof(T)) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  p.datatype = ucp_dt_make_contig(1);
  p.memory_type = UCS_MEMORY_TYPE_HOST;
  p.cb.send = [](void* request, ucs_status_t, void* user_data) {
    delete static_cast<T*>(user_data);
    ucp_request_free(request);
  };
  p.user_data = msg.get();
  void* h = ucp_tag_send_nbx(ep, msg.get(), bytes, tag, &p);
  if (h == nullptr) return UCS_OK;  // sent already: `msg` goes with this scope
  if (UCS_PTR_IS_ERR(h)) return UCS_PTR_STATUS(h);
  (void)msg.release();  // the callback deletes it
  return UCS_OK;
}

}  // namespace weft::backends::ucx_plugin
