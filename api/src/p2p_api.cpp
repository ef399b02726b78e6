// extern "C" layer for weft_send and weft_recv: argument checks, then Launch (blocking) or
// LaunchPosted (with a work handle); on the communicator the payload goes out with the
// records of the cross-rank check when the policy asks for it (p2p_check.hpp).
#include <string>

#include "api/src/buffer_check.hpp"
#include "api/src/collective_launch.hpp"
#include "api/src/guard.hpp"
#include "api/src/p2p_check.hpp"

using weft::InvalidArgument;
using weft::Result;
using weft::Status;
using weft::api::Buffer;
using weft::api::CheckPolicy;
using weft::api::CommOp;
using weft::api::GroupInfo;
using weft::api::Guard;
using weft::api::P2pArgs;
using weft::api::PostedP2p;
using weft::backends::Communicator;
using weft::backends::OpArgs;

namespace {

enum class Direction { kSend, kRecv };

Result<Buffer> CheckP2p(const GroupInfo& g, const DLTensor* buf, int32_t peer, int64_t tag) {
  if (peer < 0 || peer >= g.size())
    return InvalidArgument("peer is " + std::to_string(peer) + " but the group has " +
                           std::to_string(g.size()) + " members");
  if (tag < 0 || tag > INT32_MAX)
    return InvalidArgument("tag is " + std::to_string(tag) + " but must be 0..2^31-1");
  return weft::api::CheckBuffer(buf, "buf");
}

P2pArgs Args(Direction dir, const Buffer& b, int32_t peer, int64_t tag) {
  return P2pArgs{
      dir == Direction::kSend, b.data, static_cast<uint64_t>(b.numel), b.dtype, peer, tag};
}

// A blocking send or recv: one plugin call when unchecked (the latency path), else the
// payload and the records posted together and waited for.
Status RunNow(Communicator& c, const OpArgs& a, const CheckPolicy& pol, const P2pArgs& p) {
  if (weft::api::CheckPointToPoint(c, pol, p.peer, a)) {
    WEFT_ASSIGN_OR_RETURN(auto posted, PostedP2p::Post(c, a, p, true));
    return posted->Wait(c, -1, a);
  }
  const OpArgs f = weft::api::PayloadArgs(a);
  return p.send ? c.Send(p.buf, p.count, p.dtype, p.peer, p.tag, f)
                : c.Recv(p.buf, p.count, p.dtype, p.peer, p.tag, f);
}

Status PointToPoint(Direction dir, weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                    const DLTensor* buf, int32_t peer, int64_t tag, void* stream,
                    const weft_call_options_t* opts, weft_work_t** work) {
  const DLDevice dev = buf ? buf->device : DLDevice{kDLCPU, 0};
  if (work)
    return weft::api::LaunchPosted(
        ctx, mesh, mesh_dim, stream, opts, work, dev,
        [&](const GroupInfo& g) -> Result<weft::api::PostOp> {
          WEFT_ASSIGN_OR_RETURN(Buffer b, CheckP2p(g, buf, peer, tag));
          const CheckPolicy* pol = g.policy;
          const P2pArgs p = Args(dir, b, peer, tag);
          return weft::api::PostOp([p, pol](Communicator& c, const OpArgs& a) {
            return PostedP2p::Post(c, a, p, weft::api::CheckPointToPoint(c, *pol, p.peer, a));
          });
        });
  return weft::api::Launch(
      ctx, mesh, mesh_dim, stream, opts, nullptr, dev, [&](const GroupInfo& g) -> Result<CommOp> {
        WEFT_ASSIGN_OR_RETURN(Buffer b, CheckP2p(g, buf, peer, tag));
        const CheckPolicy* pol = g.policy;
        const P2pArgs p = Args(dir, b, peer, tag);
        return CommOp([p, pol](Communicator& c, const OpArgs& a) { return RunNow(c, a, *pol, p); });
      });
}

}  // namespace

extern "C" {

weft_status_t weft_send(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                        const DLTensor* buf, int32_t peer, int64_t tag, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return PointToPoint(Direction::kSend, ctx, mesh, mesh_dim, buf, peer, tag, stream, opts, work);
  });
}

weft_status_t weft_recv(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                        DLTensor* buf, int32_t peer, int64_t tag, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return PointToPoint(Direction::kRecv, ctx, mesh, mesh_dim, buf, peer, tag, stream, opts, work);
  });
}

}  // extern "C"
