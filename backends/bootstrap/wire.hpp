// Wire format of the bootstrap store: length-prefixed binary frames over TCP.
//
// Every message, in both directions, is one frame. Integers are big-endian.
//
//   offset  size  field
//   0       4     body length N: the number of bytes after this field
//   4       1     magic 0x57 ('W')
//   5       1     protocol version (kVersion)
//   6       1     verb (Verb)
//   7       1     code: 0 in requests and events; in replies a weft::Code value (int8)
//   8       1     flags (kHasExpected for COMPARE_SET)
//   9       8     request id: chosen by the client, echoed in the reply; 0 for events
//   17      4     timeout_ms: the request's remaining budget when sent; kNoTimeout = none
//   21      2     key count K
//   23      2     value count V
//   25      ...   K keys, then V values, each a 4-byte length followed by the bytes
//
// Handshake (version 2). Every connection starts with it; the server accepts no other verb
// until it has succeeded, and closes a connection that sends anything else first:
//   client -> HELLO      values [Nc]       Nc: 32 random bytes
//   server -> CHALLENGE  values [Ns, Ps]   Ns: 32 random bytes; Ps = ServerProof(K, Nc, Ns)
//   client -> PROOF      values [Pc]       only if Ps checks out; Pc = ClientProof(K, Nc, Ns)
//   server -> REPLY      to PROOF: OK, or an error (too many connections), or a close
// K is the job's secret; the proofs are HMAC-SHA256 under K with distinct labels over both
// nonces (handshake.hpp), so the secret never crosses the wire, neither side can replay an
// old exchange, and a rank hands nothing to a listener that does not know K either.
//
// The timeout travels as a relative budget because the two ends share no clock. Requests on
// one connection may be answered out of order (a blocked GET does not hold up a SET behind
// it); the id pairs a reply with its request. Events (EVENT, id 0) are pushed by the server
// to registered connections at any time: key = event key, value = event value.
//
// Per verb (keys / values of the request -> values of an OK reply):
//   SET          [key] / [value]                    -> []
//   GET          [key] / []                         -> [value]   (blocks until the key exists)
//   WAIT         [keys...] / []                     -> []        (blocks until all exist)
//   CHECK        [keys...] / []                     -> ["1" or "0"]
//   ADD          [key] / [decimal delta]            -> [decimal new value]
//   COMPARE_SET  [key] / [expected, desired]        -> [value now stored, or "" if missing]
//   DELETE       [key] / []                         -> []
//   REGISTER     [] / [decimal rank]                -> []        (liveness channel; rank in
//                                                                 [0, world size))
//   LEAVE        [] / []                            -> []        (BYE)
//   PUBLISH      [key] / [value]                    -> []        (SET + EVENT to registered)
// A non-OK reply carries the error message as its only value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backends/bootstrap/store_types.hpp"
#include "common/result.hpp"

namespace weft::backends::bootstrap::wire {

inline constexpr uint8_t kMagic = 0x57;
// 2: the handshake above.
inline constexpr uint8_t kVersion = 2;
inline constexpr size_t kLengthBytes = 4;
inline constexpr size_t kFixedBodyBytes = 21;  // magic .. value count
inline constexpr uint32_t kNoTimeout = 0xFFFFFFFFu;

enum class Verb : uint8_t {
  kSet = 1,
  kGet = 2,
  kWait = 3,
  kCheck = 4,
  kAdd = 5,
  kCompareSet = 6,
  kDelete = 7,
  kRegister = 8,
  kLeave = 9,
  kPublish = 10,
  kHello = 11,
  kProof = 12,
  kReply = 0x80,
  kEvent = 0x81,
  kChallenge = 0x82,
};

inline constexpr uint8_t kHasExpected = 1;  // COMPARE_SET: values[0] is the expected value

struct Frame {
  uint64_t id = 0;
  Verb verb = Verb::kReply;
  int8_t code = 0;
  uint8_t flags = 0;
  uint32_t timeout_ms = kNoTimeout;
  std::vector<std::string> keys;
  std::vector<std::string> values;
};

// The whole frame, length prefix included.
std::string Encode(const Frame& frame);
// The body length Encode would write (what the message-size limits are compared with).
uint64_t EncodedBodySize(const Frame& frame);
// The frame with one more value of `value_size` bytes at the end, all but that value's bytes:
// the caller sends them right after, from a buffer it shares (a stored value).
std::string EncodeWithTrailingValue(const Frame& frame, size_t value_size);
// Reads the 4-byte length prefix; rejects lengths below the fixed part. Callers apply their
// own upper limit (the store's message limit).
Result<uint32_t> DecodeLength(const unsigned char* prefix);
// Parses the N bytes that follow the length prefix.
Result<Frame> DecodeBody(std::string_view body);
// Parses only the fixed part (the first kFixedBodyBytes of a body): id, verb, code, flags and
// timeout, without keys or values. For answering a request whose body is not kept.
Result<Frame> DecodeFixed(std::string_view fixed);

// The remaining budget until `deadline` in ms, rounded up; kNoTimeout for far deadlines.
uint32_t TimeoutMs(Clock::time_point deadline);
const char* VerbName(Verb verb);
bool IsRequestVerb(Verb verb);

}  // namespace weft::backends::bootstrap::wire
