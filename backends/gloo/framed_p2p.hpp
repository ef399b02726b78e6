// Point-to-point whose length the host has not agreed with the peer (the user's send/recv,
// flagged WEFT_BK_OP_UNVERIFIED_SIZE). Gloo's receive checks an arriving message against the
// posted length in its device thread, which does not catch: a longer message terminates the
// process. So the sender announces the length first, in a 16-byte header on a slot of its
// own, and the receiver posts the payload's receive only once it knows it: a message of the
// posted length lands in the caller's buffer; any other is drained into scratch memory and
// the receive fails with WEFT_ERR_INVALID_ARGUMENT, leaving the communicator usable, while the
// send completes.
//
// Slots (bits 56..63 keep them clear of Gloo's collectives and of plain point-to-point):
//   header   0x81 << 56 | tag                       matched in order per (pair, tag)
//   payload  0x82 << 56 | (n mod 2^24) << 32 | tag  n: the message's number on (pair, tag)
// Both sides number the messages of a (pair, tag) alike, in posting order, so a payload's
// slot is its own even when the receivers' waiter threads post them out of order.
#pragma once

#include <cstdint>
#include <memory>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/gloo_guard.hpp"
#include "backends/gloo/request.hpp"

namespace weft::backends::gloo_plugin {

// Framed tags are below 2^32 (the host flags only user tags, below 2^31).
inline constexpr int64_t kFramedTagLimit = int64_t{1} << 32;

struct FramedMessage {
  std::shared_ptr<GuardedContext> context;
  void* buf = nullptr;
  uint64_t bytes = 0;
  int32_t peer = 0;  // member index
  int64_t tag = 0;
  uint64_t number = 0;  // the message's number on (pair, tag) in its direction
};

// Post the header (and for a send the payload) now; the rest runs on a waiter thread.
std::shared_ptr<P2pOp> PostFramedSend(const FramedMessage& m, Deadline deadline);
std::shared_ptr<P2pOp> PostFramedRecv(const FramedMessage& m, Deadline deadline);

}  // namespace weft::backends::gloo_plugin
