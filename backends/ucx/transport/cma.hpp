// Single-copy messages between processes of one host (cross-memory attach, process_vm_readv).
//
// Why the plugin does this itself: UCX 1.13 uses its own cma transport only on endpoints
// without peer-failure handling, and on those a peer that dies during a read aborts the
// reading process. Without cma, UCX moves large messages through shared-memory segments, a
// copy on each side (about half the bandwidth, SPEC §11.1). Here the receiver reads the
// sender's buffer straight into its own, and a failed read is an error like any other.
//
// Protocol, for a message of at least Link::cma_bytes between two ranks that can read each
// other (same host, same PID namespace, permission checked at start-up): the sender sends a
// Descriptor (its pid, the buffer's address, length and layout) under the message's tag and
// waits for an answer under the same tag with kAckBit set; the receiver posts a receive for
// the descriptor and, after it arrived (outside UCX's callbacks), either
//  - reads the bytes and answers with an Ack carrying the outcome, or
//  - when the sender's memory is in more pieces than its own and the sender said it can write
//    into this receiver (kWritableMagic), lends its buffer (grants.hpp) and answers with a push
//    request: a Descriptor of its own buffer (kPushMagic) holding the loan's token. The sender
//    writes the bytes (process_vm_writev) and reports the outcome in the loan's slot.
// Both sides decide by the size, which they both know. A size mismatch is still an
// INVALID_ARGUMENT on both sides: a receive that finds a descriptor it did not expect (or the
// wrong length) acks it with the error, and receives no longer than a descriptor go through a
// descriptor-sized bounce buffer so a descriptor is never truncated (nor taken for data).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <weft/status.h>

#include "backends/ucx/transport/board.hpp"
#include "backends/ucx/transport/grants.hpp"
#include "backends/ucx/transport/layout.hpp"
#include "backends/ucx/transport/pipes.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

inline constexpr uint64_t kDescriptorMagic = 0x57656674434d4131ull;  // "WeftCMA1"
// A descriptor from a sender that has mapped the receiver's grant table (it can push).
inline constexpr uint64_t kWritableMagic = 0x57656674434d4157ull;  // "WeftCMAW"
// A descriptor whose bytes flow through a pipe of the sender's (pipes.hpp): `grant` is the
// channel's token. Senders send it only to receivers that mapped their pipes (`mapped_by`).
inline constexpr uint64_t kPipeMagic = 0x5765667450495045ull;  // "WeftPIPE"
// A receiver's answer asking the sender to write into the described buffer.
inline constexpr uint64_t kPushMagic = 0x5765667450555348ull;  // "WeftPUSH"

struct Descriptor {
  uint64_t magic = kDescriptorMagic;
  uint64_t address = 0;
  uint64_t length = 0;
  int64_t pid = 0;
  int64_t sender_rank = 0;
  Layout layout;       // the sender's memory: strided sends are read where they lie
  uint64_t grant = 0;  // a push request: the loan's token (GrantTable::Lend)
};
// Receives no longer than a whole descriptor are bounced (see above); tests name the size. A
// sender whose memory is one run sends only the header (the layout is implied): at 40 bytes
// it goes as one of UCX's "short" eager messages, a few hundred ns sooner than 192.
static_assert(sizeof(Descriptor) == 192, "the descriptor's size is part of the wire protocol");
inline constexpr uint64_t kShortDescriptorBytes = offsetof(Descriptor, layout);
static_assert(kShortDescriptorBytes == 40, "the short descriptor's size is part of the protocol");

struct Ack {
  int32_t status = WEFT_OK;    // the receiver's outcome, a weft_status_t
  uint32_t copy_ns = 0;        // how long its read took (capped; 0: not read), for PathChoice
  uint64_t receive_bytes = 0;  // the receiver's buffer, for the sender's message on mismatch
};
static_assert(sizeof(Ack) == 16, "the ack's size is part of the wire protocol");

// What a rank publishes about itself next to its worker address.
struct CmaIdentity {
  uint64_t magic = kDescriptorMagic;
  int64_t pid = 0;
  uint64_t threshold = 0;  // 0: this rank does not take part
  char host[96] = {};      // boot id + PID namespace: equal means process_vm_readv can reach
  GrantIdentity grants;    // where writers find this rank's grant table (slots 0: none)
  BoardIdentity board;     // where the ranks of its host find its board (areas 0: none)
  PipeIdentity pipes;      // where they find its pipes (channels 0: none)
};

// This process's identity; `threshold` 0 when cma is disabled (WEFT_UCX_CMA=0), the kernel
// forbids it (Yama ptrace_scope >= 2, a seccomp filter), or a read of our own memory fails.
// With Yama ptrace_scope 1 it allows any process of the same user to read this one
// (PR_SET_PTRACER), as Open MPI's shared-memory transport does.
CmaIdentity LocalCmaIdentity(uint64_t threshold);

// The byte threshold two ranks use between them: 0 (never) unless both take part and share a
// host, else the larger of their thresholds, so both sides pick the same protocol.
uint64_t PairThreshold(const CmaIdentity& mine, const CmaIdentity& theirs);

// A reader's scratch for reads whose addresses the kernel copies slowly (common/copy.hpp: the
// destination 1..63 bytes past the source modulo 4 KiB; process_vm_readv of 1 MiB measured
// 519 vs 121 us). Such a read goes through `data` in pieces of kBounceBytes, placed at the
// source's offset in its page (so the kernel's copy is fast), then copied out with
// weft::CopyBytes: 128 KiB 12 + 4 us instead of 55 us.
struct Bounce {
  static constexpr uint64_t kBounceBytes = ::weft::backends::ucx_plugin::kBounceBytes;
  char* data = nullptr;  // page-aligned, kBounceBytes + 4096 bytes; null: read directly
};

// Reads `length` bytes at `remote` in process `pid` into `local`. WEFT_OK, or the status with
// *why set (a process that is gone is PEER_FAILURE).
weft_status_t ReadRemote(int64_t pid, uint64_t remote, void* local, uint64_t length,
                         std::string* why, Bounce bounce = {});
// The same between two strided regions of equal size: the bytes of `remote_layout` at
// `remote` (in `pid`) in order into those of `local_layout` at `local`, up to 1024 pieces per
// system call (contiguous on both sides: as ReadRemote). A contiguous remote region into local
// runs shorter than kUnpackRunsBelow bytes goes through `bounce` (when given) and is unpacked in
// user space (tuning_table.hpp).
weft_status_t ReadRemoteRegion(int64_t pid, uint64_t remote, const Layout& remote_layout,
                               char* local, const Layout& local_layout, std::string* why,
                               Bounce bounce = {});
// The other way (process_vm_writev): the bytes of `local_layout` at `local` in order into
// those of `remote_layout` at `remote` in process `pid`, a buffer it lent for `token` in its
// grant table (`grants`): before each system call the loan is looked at, and a loan the
// receiver revoked (grants.hpp) stops the write with the status the receive ended with. A
// process that is gone is PEER_FAILURE, memory it does not have INVALID_ARGUMENT.
weft_status_t WriteRemoteRegion(int64_t pid, uint64_t remote, const Layout& remote_layout,
                                const char* local, const Layout& local_layout, std::string* why,
                                const PeerGrants& grants, uint64_t token);

}  // namespace weft::backends::ucx_plugin
