#include "backends/nccl/plugin/p2p.hpp"

#include "backends/nccl/plugin/comm.hpp"
#include "backends/nccl/plugin/completion.hpp"
#include "backends/nccl/plugin/group.hpp"
#include "backends/nccl/plugin/launch.hpp"
#include "backends/nccl/plugin/ops.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::nccl_plugin {
weft_status_t P2pBatch::Post(Message m) {
  std::lock_guard<std::mutex> lock(mu_);
  m.request->Queued();
  pending_.push_back(std::move(m));
  return WEFT_OK;
}

weft_status_t P2pBatch::Flush(Comm& c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.empty()) return WEFT_OK;
  // Messages to oneself pair up in order; one without its other half yet stays queued.
  std::vector<Message> all = std::move(pending_), group;
  pending_.clear();
  size_t self_sends = 0, self_recvs = 0;
  for (const Message& m : all) {
    if (m.peer == c.index()) ++(m.send ? self_sends : self_recvs);
  }
  size_t self_pairs = std::min(self_sends, self_recvs), sends_taken = 0, recvs_taken = 0;
  for (Message& m : all) {
    if (m.peer == c.index()) {
      size_t& taken = m.send ? sends_taken : recvs_taken;
      if (taken++ >= self_pairs) {
        pending_.push_back(std::move(m));
        continue;
      }
    }
    group.push_back(std::move(m));
  }
  return Issue(c, group);
}

// One NCCL group (with messages to oneself copied) on the caller's stream of the first message
// on device memory (NULL: the legacy default stream), else the communicator's own; host
// buffers staged.
weft_status_t P2pBatch::Issue(Comm& c, std::vector<Message>& group) {
  if (group.empty()) return WEFT_OK;
  weft_bk_op_t args{};
  args.struct_size = sizeof(args);
  args.device = DLDevice{kDLCPU, 0};
  args.timeout_ms = group.front().deadline.RemainingMs();
  Launch l(c, args, true);
  for (const Message& m : group) {
    if (!m.host) {
      l.stream = m.stream;  // NULL: the legacy default stream
      break;
    }
  }
  std::vector<Transfer> moves;
  for (const Message& m : group) {
    if (m.host) {
      if (m.send)
        l.staging.In(m.buf, m.bytes);
      else
        l.staging.Out(m.buf, m.bytes);
    }
    moves.push_back({m.send, m.buf, m.bytes, m.peer});
  }
  weft_status_t st = l.staging.Begin(l.stream);
  if (st == WEFT_OK) st = Exchange(l, "send/recv", moves);
  std::shared_ptr<Completion> done;
  st = Seal(l, st, &done);
  for (Message& m : group) {
    if (st != WEFT_OK && m.request)
      m.request->SetOutcome(WEFT_ERR_BACKEND, "nccl: the group failed");
    m.request->Issued(done);
  }
  return st;
}

}  // namespace weft::backends::nccl_plugin

namespace weft::backends::nccl_plugin::ops {
namespace {

weft_status_t Post(weft_bk_comm_t* handle, bool send, void* buf, uint64_t count, DLDataType t,
                   int32_t peer, const weft_bk_op_t* a, weft_bk_request_t** req) {
  Comm& c = Of(handle);
  State& s = c.state();
  if (weft_status_t f = s.Poll(); f != WEFT_OK) return f;
  const weft_bk_op_t args = plugin_kit::ReadOpArgs(a, s.default_timeout_ms());
  const Launch probe(c, args, plugin_kit::IsHostMemory(args.device));
  const char* what = send ? "send buffer" : "recv buffer";
  uint64_t bytes = 0;
  if (weft_status_t st = Bytes(probe, buf, count, t, what, &bytes); st != WEFT_OK) return st;
  if (peer < 0 || peer >= c.size())
    return s.Fail(WEFT_ERR_INVALID_ARGUMENT,
                  std::string(send ? "send" : "recv") + ": peer " + std::to_string(peer) +
                      " is not a member of a group of " + std::to_string(c.size()));
  Message m;
  m.send = send;
  m.buf = buf;
  m.bytes = bytes;
  m.peer = peer;
  m.host = probe.host;
  m.stream = probe.host ? nullptr : static_cast<cudaStream_t>(args.stream);
  m.deadline = probe.deadline;
  auto request = std::make_shared<Request>(c, probe.deadline, !probe.host);
  m.request = request;
  // WEFT_BK_OP_UNVERIFIED_SIZE needs nothing more: a length mismatch on NCCL is unspecified
  // output or an error, never a write past a buffer (WEFT_BK_CAP_SIZE_SAFE, README.md).
  if (weft_status_t st = c.batch().Post(std::move(m)); st != WEFT_OK) return st;
  if (req) {
    *req = new weft_bk_request{std::move(request)};  // freed by request_free (C ABI ownership)
    return WEFT_OK;
  }
  // Blocking: nothing else of this caller can complete the message's other half.
  if (weft_status_t st = s.UseDevice(); st != WEFT_OK) return st;
  return request->Wait(-1);
}

}  // namespace

weft_status_t Send(weft_bk_comm_t* c, const void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Post(c, true, const_cast<void*>(buf), count, t, peer, a, req);
}

weft_status_t Recv(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t peer,
                   int64_t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  return Post(c, false, buf, count, t, peer, a, req);
}

}  // namespace weft::backends::nccl_plugin::ops
