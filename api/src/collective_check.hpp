// Verifying a public collective's arguments across the members before it runs (SPEC §6.4,
// §10; docs/collective_checks.md): one all-gather of a 256-byte slot per member (a 64-byte
// record of its arguments, then room for a small operation's data, collective_fused.hpp)
// through the same communicator, after which every member holds every record and reaches the
// same verdict. When it fails, no buffer of the caller's is touched and no member waits, and
// the communicator stays usable (the failed call counts on every member alike).
#pragma once

#include "api/src/check_policy.hpp"
#include "api/src/check_record.hpp"
#include "backends/host/communicator.hpp"

namespace weft::api {

// Whether a collective moving `bytes` on this rank of `c` is checked (inline: this runs on
// every call). Not on device buffers: the check reads the arguments on the host and carries
// small operations' data in its exchange, and the only backend with device buffers (NCCL)
// writes no buffer past its own counts (WEFT_BK_CAP_SIZE_SAFE).
inline bool WillCheck(const backends::Communicator& c, const CheckPolicy& policy, uint64_t bytes,
                      const backends::OpArgs& a) {
  return c.size() > 1 && a.OnHost() && policy.CheckCollective(c.SizeSafe(), bytes);
}

// Exchanges and compares the records of call `seq` on `c` (from c.NextUserCall(), taken on
// every call, checked or not): OK when every member passed the same arguments, else
// INVALID_USAGE naming member 0's and the first differing member's, or the error of the
// exchange itself (deadline, peer failure). *done: the exchange carried the whole operation
// (a barrier, a small one) and wrote its output; the caller runs the operation only when it is
// false.
Status CheckCollective(backends::Communicator& c, const backends::OpArgs& a,
                       const check::Call& call, uint64_t seq, bool* done);

}  // namespace weft::api
