// Admission of connections (SPEC §8 "Store security"): every connection starts
// unauthenticated and must complete the handshake of wire.hpp before any other message;
// anything else first, a wrong proof, a stalled handshake or a malformed frame closes it with
// a log line naming the peer and the reason. Unauthenticated connections have a cap of their
// own (the oldest is dropped for a newcomer), so that a stranger can neither exhaust the
// host's descriptors nor keep the job's ranks out; authenticated ones are capped too.
#include <algorithm>

#include "backends/bootstrap/handshake.hpp"
#include "backends/bootstrap/store_state.hpp"

namespace weft::backends::bootstrap::detail {

using wire::Verb;

void StoreState::Attach(boost::asio::ip::tcp::socket socket) {
  auto session = std::make_shared<Session>(std::move(socket), *this, limits_);
  if (unauthenticated_.size() >= limits_.max_unauthenticated) {
    Drop(unauthenticated_.front(), "too many connections awaiting authentication (" +
                                       std::to_string(limits_.max_unauthenticated) +
                                       "); this was the oldest");
  }
  sessions_.insert(session);
  unauthenticated_.push_back(session);
  ArmHandshakeTimer();
  session->Start();
}

bool StoreState::ShedUnauthenticated(const std::string& why) {
  if (unauthenticated_.empty()) return false;
  Drop(unauthenticated_.front(), why);
  return true;
}

void StoreState::Authenticate(const SessionPtr& s, const wire::Frame& frame) {
  if (s->auth.stage == AuthState::Stage::kAwaitHello && frame.verb == Verb::kHello) {
    return OnHello(s, frame);
  }
  if (s->auth.stage == AuthState::Stage::kAwaitProof && frame.verb == Verb::kProof) {
    return OnProof(s, frame);
  }
  Drop(s, std::string("it sent ") + wire::VerbName(frame.verb) + " before authenticating");
}

void StoreState::OnHello(const SessionPtr& s, const wire::Frame& frame) {
  if (!frame.keys.empty() || frame.values.size() != 1 ||
      frame.values[0].size() != handshake::kNonceBytes) {
    return Drop(s, "malformed Hello");
  }
  auto nonce = handshake::NewNonce();
  if (!nonce.ok()) return Drop(s, nonce.status().message());
  s->auth.client_nonce = frame.values[0];
  s->auth.server_nonce = std::move(nonce).value();
  s->auth.stage = AuthState::Stage::kAwaitProof;
  wire::Frame challenge;
  challenge.verb = Verb::kChallenge;
  challenge.id = frame.id;
  challenge.values = {s->auth.server_nonce,
                      handshake::ServerProof(key_, s->auth.client_nonce, s->auth.server_nonce)};
  s->Send(challenge);
}

void StoreState::OnProof(const SessionPtr& s, const wire::Frame& frame) {
  if (!frame.keys.empty() || frame.values.size() != 1) return Drop(s, "malformed Proof");
  const std::string expected =
      handshake::ClientProof(key_, s->auth.client_nonce, s->auth.server_nonce);
  if (!handshake::SameProof(frame.values[0], expected)) {
    return Drop(s, "wrong proof: it does not know the job's secret");
  }
  Admit(s, frame);
}

void StoreState::Admit(const SessionPtr& s, const wire::Frame& proof) {
  const uint32_t limit = limits_.ConnectionLimit(world_size_);
  if (authenticated_ >= limit) {
    const std::string why = "the store already serves " + std::to_string(authenticated_) +
                            " connections, its limit (WEFT_STORE_MAX_CONNECTIONS on the store's "
                            "host; by default 4 * world size + 64)";
    refusals_.Warn("bootstrap store: refused the connection from " + s->peer() + ": " + why);
    // It stays unauthenticated, so that the handshake timer closes it after the reply has
    // gone out (the client closes first), and any further frame drops it.
    s->auth.stage = AuthState::Stage::kAwaitHello;
    return ReplyError(*s, proof, Code::kNotAvailable, why);
  }
  ForgetUnauthenticated(s.get());
  s->auth = AuthState{AuthState::Stage::kDone, {}, {}};
  ++authenticated_;
  ReplyOk(*s, proof);
}

void StoreState::Drop(SessionPtr s, const std::string& why) {
  if (s->authenticated() && authenticated_ > 0) --authenticated_;
  ForgetUnauthenticated(s.get());
  s->Close();  // first: the descriptor may be what the process is short of
  sessions_.erase(s);
  refusals_.Warn("bootstrap store: closed the connection from " + s->peer() + ": " + why);
}

void StoreState::ForgetUnauthenticated(const Session* s) {
  auto it = std::find_if(unauthenticated_.begin(), unauthenticated_.end(),
                         [s](const SessionPtr& p) { return p.get() == s; });
  if (it != unauthenticated_.end()) unauthenticated_.erase(it);
}

// One timer for all handshakes: it fires at the oldest unauthenticated connection's deadline.
void StoreState::ArmHandshakeTimer() {
  if (handshake_timer_armed_ || unauthenticated_.empty() || closing_) return;
  handshake_timer_armed_ = true;
  handshake_timer_.expires_at(unauthenticated_.front()->accepted_at + limits_.handshake_timeout);
  handshake_timer_.async_wait([this](const boost::system::error_code& ec) {
    handshake_timer_armed_ = false;
    if (ec || closing_) return;
    ExpireHandshakes();
    ArmHandshakeTimer();
  });
}

void StoreState::ExpireHandshakes() {
  const auto now = std::chrono::steady_clock::now();
  while (!unauthenticated_.empty() &&
         unauthenticated_.front()->accepted_at + limits_.handshake_timeout <= now) {
    Drop(unauthenticated_.front(),
         "no authentication within " + std::to_string(limits_.handshake_timeout.count()) + " ms");
  }
}

}  // namespace weft::backends::bootstrap::detail
