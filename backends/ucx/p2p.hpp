// send and recv of the plugin table (group indices name peers).
#pragma once

#include "backends/ucx/comm.hpp"

namespace weft::backends::ucx_plugin {

weft_status_t Send(Comm& c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Recv(Comm& c, void* buf, uint64_t count, DLDataType t, int32_t peer, int64_t tag,
                   const weft_bk_op_t* a, weft_bk_request_t** req);

}  // namespace weft::backends::ucx_plugin
