#include "backends/bootstrap/client_handshake.hpp"

#include "backends/bootstrap/client_frames.hpp"
#include "backends/bootstrap/handshake.hpp"

namespace weft::backends::bootstrap::detail {
namespace {

using Outcome = HandshakeResult::Outcome;
using wire::Verb;

// The handshake's answers are short; a longer one is not from a Weft store.
constexpr uint32_t kMaxAnswer = 4096;

HandshakeResult Fail(Outcome outcome, Code code, const std::string& message) {
  return {outcome, Status{code, "bootstrap store: " + message}};
}

// Sends `frame` and reads the answer; kRetry on a broken or stalled connection.
HandshakeResult Exchange(ClientSocket& socket, const wire::Frame& frame, Clock::time_point deadline,
                         wire::Frame& answer) {
  size_t sent = 0;
  Status status = socket.SendAll(wire::Encode(frame), deadline, &sent);
  Result<wire::Frame> got =
      status.ok() ? RecvFrame(socket, kMaxAnswer, deadline) : Result<wire::Frame>(status);
  if (got.ok()) {
    answer = std::move(got).value();
    return {};
  }
  return Fail(Outcome::kRetry, Code::kPeerFailure,
              std::string("handshake interrupted: ") + got.status().message());
}

// A non-OK reply: the store refused this connection and said why.
bool IsRefusal(const wire::Frame& answer) {
  return answer.verb == Verb::kReply && answer.code != 0 && answer.values.size() == 1;
}

}  // namespace

HandshakeResult ClientHandshake(ClientSocket& socket, std::string_view key,
                                const std::string& endpoint, const std::string& source,
                                Clock::time_point deadline) {
  auto nonce = handshake::NewNonce();
  if (!nonce.ok()) return {Outcome::kRefused, nonce.status()};
  wire::Frame hello;
  hello.verb = Verb::kHello;
  hello.id = 1;
  hello.values = {*nonce};
  wire::Frame challenge;
  HandshakeResult step = Exchange(socket, hello, deadline, challenge);
  if (step.outcome != Outcome::kOk) return step;
  if (IsRefusal(challenge)) {
    return Fail(Outcome::kRefused, static_cast<Code>(challenge.code),
                "the store at " + endpoint + " refused this connection: " + challenge.values[0]);
  }
  const bool well_formed = challenge.verb == Verb::kChallenge && challenge.values.size() == 2 &&
                           challenge.values[0].size() == handshake::kNonceBytes;
  // Checked before anything that depends on the secret goes out.
  if (!well_formed ||
      !handshake::SameProof(challenge.values[1],
                            handshake::ServerProof(key, *nonce, challenge.values[0]))) {
    return Fail(Outcome::kWrongSecret, Code::kInvalidUsage,
                "the store at " + endpoint + " could not prove that it knows this rank's secret (" +
                    source +
                    "): the ranks and the store were given different secrets "
                    "(WEFT_STORE_TOKEN), or another program listens on that port");
  }
  wire::Frame proof;
  proof.verb = Verb::kProof;
  proof.id = 2;
  proof.values = {handshake::ClientProof(key, *nonce, challenge.values[0])};
  wire::Frame verdict;
  step = Exchange(socket, proof, deadline, verdict);
  if (step.outcome != Outcome::kOk) return step;
  if (verdict.verb == Verb::kReply && verdict.code == 0 && verdict.id == proof.id) return {};
  if (IsRefusal(verdict)) {
    return Fail(Outcome::kRefused, static_cast<Code>(verdict.code),
                "the store at " + endpoint + " refused this connection: " + verdict.values[0]);
  }
  return Fail(Outcome::kRetry, Code::kPeerFailure,
              "unexpected " + std::string(wire::VerbName(verdict.verb)) + " during the handshake");
}

}  // namespace weft::backends::bootstrap::detail
