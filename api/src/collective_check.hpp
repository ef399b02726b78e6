// Verifying a public collective's arguments across the members before it runs (SPEC §6.4,
// §10; docs/collective_checks.md): one all-gather of a 64-byte record per member through the
// same communicator, after which every member holds every record and reaches the same
// verdict. Nothing of the operation itself has moved when it fails, so no member waits and no
// buffer is touched, and the communicator stays usable (the failed call counts on every member
// alike).
#pragma once

#include "api/src/check_policy.hpp"
#include "api/src/check_record.hpp"
#include "backends/host/communicator.hpp"

namespace weft::api {

// Numbers the call on `c` and, when `policy` asks for it, exchanges and compares the records:
// OK when every member passed the same arguments, else INVALID_USAGE naming member 0's and
// the first differing member's, or the error of the exchange itself (deadline, peer failure).
// *checked (if given) says whether the exchange ran: a checked barrier is complete.
Status CheckCollective(backends::Communicator& c, const backends::OpArgs& a,
                       const CheckPolicy& policy, const check::Call& call, bool* checked = nullptr);

}  // namespace weft::api
