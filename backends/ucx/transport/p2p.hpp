// send and recv of the plugin table (group indices name peers).
#pragma once

#include <memory>

#include "backends/ucx/transport/comm.hpp"
#include "backends/ucx/transport/request.hpp"
#include "common/clock.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::ucx_plugin {

// Buffers the plugin can touch: host memory (pinned host memory included).
inline bool OnHost(const weft_bk_op_t* a) { return plugin_kit::IsHostMemory(a); }

// The op's deadline from its timeout, counted from now; < 0: none.
inline Clock::time_point DeadlineIn(int64_t timeout_ms) {
  return DeadlineFromTimeoutMs(timeout_ms);
}

inline int64_t TimeoutOf(const weft_bk_op_t* a) { return a == nullptr ? -1 : a->timeout_ms; }

inline Clock::time_point DeadlineOf(const weft_bk_op_t* a) { return DeadlineIn(TimeoutOf(a)); }

weft_status_t Send(Comm& c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t Recv(Comm& c, void* buf, uint64_t count, DLDataType t, int32_t peer, int64_t tag,
                   const weft_bk_op_t* a, weft_bk_request_t** req);

// Hands `r` to the caller, or waits for it and frees it when the caller asked for a blocking
// op (req == NULL).
weft_status_t Deliver(std::unique_ptr<weft_bk_request> r, weft_bk_request_t** req);

// Require State::mu(). Post `r` (state, is_recv, peer_rank, bytes and deadline filled in) as a
// UCX tagged send/receive of r->bytes bytes at `buf` under the full 64-bit `wire_tag`, by
// single copy from a large enough message on (cma.hpp; `ack_tag` is the tag of the receiver's
// Ack: AckTag with the receiver's index); a failure to post ends `r` with its status.
// Collectives post their steps through these. `strided` (normalized, Bytes() == r->bytes):
// the memory at `buf` is that region; a single-copy receiver reads it in place, else it is
// packed (send) or unpacked on arrival (receive).
void PostSendLocked(Request* r, ucp_ep_h ep, const void* buf, uint64_t wire_tag, uint64_t ack_tag,
                    const Layout* strided = nullptr);
void PostRecvLocked(Request* r, void* buf, uint64_t wire_tag, uint64_t ack_tag,
                    const Layout* strided = nullptr);

// send_strided / recv_strided of the plugin table (ABI 1.1).
weft_status_t SendStrided(Comm& c, const void* base, const weft_bk_strided_t* layout, int32_t peer,
                          int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req);
weft_status_t RecvStrided(Comm& c, void* base, const weft_bk_strided_t* layout, int32_t peer,
                          int64_t tag, const weft_bk_op_t* a, weft_bk_request_t** req);

}  // namespace weft::backends::ucx_plugin
