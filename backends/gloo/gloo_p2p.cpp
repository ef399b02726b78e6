// send and recv: Gloo unbound buffers, progressed by the device thread.
//
// Tags map to Gloo slots as kP2pSlotBase | tag. Each communicator has its own Gloo context and
// connections, so slots only need to stay clear of the slots Gloo's collectives build on the
// same context (prefix byte 0x01..0x08 in bits 56..63, see gloo/types.h); the base sets the
// top bit, and tags must be below 2^56. Gloo matches sends and receives in order per
// (pair, slot), which is the ABI's "in order per (peer, tag)". Messages whose length the host
// has not agreed with the peer go framed (framed_p2p.hpp).
#include "backends/gloo/dtype.hpp"
#include "backends/gloo/framed_p2p.hpp"
#include "backends/gloo/handles.hpp"
#include "backends/gloo/op_scope.hpp"
#include "backends/gloo/ops.hpp"
#include "backends/gloo/staging.hpp"
#include "common/clock.hpp"

namespace weft::backends::gloo_plugin {
namespace {

constexpr uint64_t kP2pSlotBase = uint64_t{0x80} << 56;
constexpr int64_t kTagLimit = int64_t{1} << 56;

struct P2pCall {
  bool recv;
  void* buf;
  uint64_t bytes;
  int32_t peer;
  int64_t tag;
};

std::string P2pName(const Comm& comm, const P2pCall& c) {
  const bool valid_peer = c.peer >= 0 && c.peer < comm.size();
  return std::string(c.recv ? "recv from " : "send to ") +
         (valid_peer ? "rank " + std::to_string(comm.world_rank(c.peer)) + " " : "") + "(member " +
         std::to_string(c.peer) + "), tag " + std::to_string(c.tag) + ", " +
         std::to_string(c.bytes) + " bytes";
}

bool Framed(const OpScope& scope) { return (scope.flags() & WEFT_BK_OP_UNVERIFIED_SIZE) != 0; }

std::shared_ptr<P2pOp> PostPlain(Comm& comm, const OpScope& scope, const P2pCall& c) {
  auto buffer = comm.mesh()->guarded()->CreateGuarded(NonNull(c.buf), c.bytes);
  const uint64_t slot = kP2pSlotBase | static_cast<uint64_t>(c.tag);
  if (c.recv) {
    buffer->recv(c.peer, slot, 0, c.bytes);
  } else {
    buffer->send(c.peer, slot, 0, c.bytes);
  }
  return std::make_shared<PlainP2p>(std::move(buffer), c.recv, scope.deadline());
}

std::unique_ptr<Request> PostToGloo(const std::shared_ptr<Comm>& comm, const OpScope& scope,
                                    const P2pCall& c) {
  std::shared_ptr<P2pOp> p2p;
  if (Framed(scope)) {
    FramedMessage m{comm->mesh()->guarded(), c.buf, c.bytes, c.peer, c.tag};
    m.number = comm->NextFramedNumber(c.recv, c.peer, c.tag);
    p2p = c.recv ? PostFramedRecv(m, scope.deadline()) : PostFramedSend(m, scope.deadline());
  } else {
    p2p = PostPlain(*comm, scope, c);
  }
  comm->waiters().Run([p2p] { p2p->Await(); });
  return std::make_unique<GlooP2pRequest>(comm, std::move(p2p), scope.op());
}

std::unique_ptr<Request> PostToSelf(const std::shared_ptr<Comm>& comm, const OpScope& scope,
                                    const P2pCall& c) {
  if (!c.recv) {
    comm->loopback().Send(c.tag, c.buf, c.bytes);
    return std::make_unique<DoneRequest>();
  }
  auto slot = comm->loopback().Recv(c.tag, c.buf, c.bytes);
  return std::make_unique<LoopbackRequest>(comm, std::move(slot), scope.op(), scope.deadline());
}

weft_status_t CheckP2p(const OpScope& scope, const Comm& comm, const P2pCall& c) {
  if (c.peer < 0 || c.peer >= comm.size()) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "peer outside the group");
  }
  if (c.tag < 0 || c.tag >= kTagLimit) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "tag outside [0, 2^56)");
  }
  if (Framed(scope) && c.tag >= kFramedTagLimit) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT,
                      "a message of unverified length needs a tag below 2^32");
  }
  return WEFT_OK;
}

// Blocks until the request finished when the caller asked for no request.
weft_status_t Finish(const Host& host, const std::shared_ptr<Comm>& comm,
                     std::unique_ptr<Request> request, weft_bk_request_t** req) {
  if (req != nullptr) return HandOut(host, comm, std::move(request), req);
  request->WaitUntil(kNoDeadline);
  const Failure& outcome = request->outcome();
  return outcome.status == WEFT_OK ? WEFT_OK : host.Fail(outcome.status, outcome.message);
}

weft_status_t PostP2p(const std::shared_ptr<Comm>& comm, bool recv, void* buf, uint64_t count,
                      DLDataType dtype, int32_t peer, int64_t tag, const weft_bk_op_t* args,
                      weft_bk_request_t** req) {
  const uint64_t item = ItemBytes(dtype);
  P2pCall call{recv, buf, 0, peer, tag};
  CheckedMul(count, item, &call.bytes);  // the name only; CheckBuffer reports overflow
  OpScope scope(*comm, P2pName(*comm, call), args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  if (item == 0) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, DtypeText(dtype) + " is not bytes");
  if (weft_status_t s = scope.CheckBuffer("buf", buf, count, item, &call.bytes); s) return s;
  if (weft_status_t s = CheckP2p(scope, *comm, call); s != WEFT_OK) return s;
  std::unique_ptr<Request> request;
  const weft_status_t s = scope.Run([&] {
    request = peer == comm->index() ? PostToSelf(comm, scope, call) : PostToGloo(comm, scope, call);
  });
  if (s != WEFT_OK) return s;
  return Finish(comm->host(), comm, std::move(request), req);
}

}  // namespace

weft_status_t Send(const std::shared_ptr<Comm>& comm, const void* buf, uint64_t count,
                   DLDataType dtype, int32_t peer, int64_t tag, const weft_bk_op_t* args,
                   weft_bk_request_t** req) {
  // Gloo's buffer type is not const-correct; a send only reads it.
  return PostP2p(comm, false, const_cast<void*>(buf), count, dtype, peer, tag, args, req);
}

weft_status_t Recv(const std::shared_ptr<Comm>& comm, void* buf, uint64_t count, DLDataType dtype,
                   int32_t peer, int64_t tag, const weft_bk_op_t* args, weft_bk_request_t** req) {
  return PostP2p(comm, true, buf, count, dtype, peer, tag, args, req);
}

}  // namespace weft::backends::gloo_plugin
