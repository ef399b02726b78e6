#include "backends/host/communicator.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/host/composed_ops.hpp"
#include "common/clock.hpp"
#include "device/element.hpp"
#include "device/queue.hpp"

namespace weft::backends {
namespace {

using Clock = std::chrono::steady_clock;

DLDataType Dl(DType t) { return DLDataType{t.code, t.bits, t.lanes}; }
const DLDataType kBytes{kDLUInt, 8, 1};

std::vector<uint64_t> Scaled(std::span<const uint64_t> v, uint64_t k) {
  std::vector<uint64_t> out(v.begin(), v.end());
  for (uint64_t& x : out) x *= k;
  return out;
}

}  // namespace

Communicator::Communicator(Backend& backend, weft_bk_comm_t* comm, std::vector<int32_t> ranks,
                           int32_t index)
    : backend_(backend),
      comm_(comm),
      ranks_(std::move(ranks)),
      index_(index),
      size_safe_((backend.table().capabilities & WEFT_BK_CAP_SIZE_SAFE) != 0),
      untagged_p2p_((backend.table().capabilities & WEFT_BK_CAP_UNTAGGED_P2P) != 0) {}

Communicator::~Communicator() {
  if (comm_) backend_.table().comm_destroy(comm_);
}

weft_bk_op_t Communicator::BkArgs(const OpArgs& a) {
  weft_bk_op_t op{sizeof(weft_bk_op_t), 0, a.device, a.stream, RemainingMs(a.deadline), seq_++};
  op.flags = a.bk_flags;
  return op;
}

bool Communicator::Declined(weft_status_t s, const OpArgs& a) const {
  return s == WEFT_ERR_UNSUPPORTED &&
         (a.OnHost() || (backend_.table().capabilities & WEFT_BK_CAP_DEVICE_CUDA) != 0);
}

Status Communicator::Check(weft_status_t s, const char* op) const {
  return s == WEFT_OK ? Status::Ok() : backend_.Error(s, op);
}

int64_t Communicator::NextInternalTag() { return kInternalTagBase + (internal_tag_++ % (1 << 20)); }

Status Communicator::Allreduce(const void* send, void* recv, uint64_t count, DType t, ReduceOp op,
                               const OpArgs& a) {
  if (op == ReduceOp::kAvg) return AvgAllreduce(send, recv, count, t, a);
  if (auto* f = backend_.table().allreduce) {
    const weft_bk_op_t args = BkArgs(a);
    const weft_status_t s =
        f(comm_, send, recv, count, Dl(t), static_cast<int32_t>(op), &args, nullptr);
    if (!Declined(s, a)) return Check(s, "allreduce");
  }
  return composed::Allreduce(*this, send, recv, count, t, op, a);
}

Status Communicator::Allgather(const void* send, void* recv, uint64_t count, DType t,
                               const OpArgs& a) {
  if (auto* f = backend_.table().allgather) {
    const weft_bk_op_t args = BkArgs(a);
    return Check(f(comm_, send, recv, count, Dl(t), &args, nullptr), "allgather");
  }
  std::vector<uint64_t> counts(size(), count), displs(size());
  for (int32_t i = 0; i < size(); ++i) displs[i] = count * i;
  return Allgatherv(send, count, recv, counts, displs, t, a);
}

Status Communicator::Allgatherv(const void* send, uint64_t send_count, void* recv,
                                std::span<const uint64_t> counts, std::span<const uint64_t> displs,
                                DType t, const OpArgs& a) {
  if (auto* f = backend_.table().allgatherv) {
    const weft_bk_op_t args = BkArgs(a);
    return Check(
        f(comm_, send, send_count, recv, counts.data(), displs.data(), Dl(t), &args, nullptr),
        "allgatherv");
  }
  const uint64_t item = ItemSize(t);
  return composed::Allgatherv(*this, send, send_count * item, recv, Scaled(counts, item),
                              Scaled(displs, item), a);
}

Status Communicator::ReduceScatter(const void* send, void* recv, uint64_t count, DType t,
                                   ReduceOp op, const OpArgs& a) {
  if (op != ReduceOp::kAvg) {
    if (auto* f = backend_.table().reduce_scatter) {
      const weft_bk_op_t args = BkArgs(a);
      const weft_status_t s =
          f(comm_, send, recv, count, Dl(t), static_cast<int32_t>(op), &args, nullptr);
      if (!Declined(s, a)) return Check(s, "reduce_scatter");
    }
  }
  std::vector<uint64_t> counts(size(), count);
  return ReduceScatterv(send, recv, counts, t, op, a);
}

Status Communicator::ReduceScatterv(const void* send, void* recv, std::span<const uint64_t> counts,
                                    DType t, ReduceOp op, const OpArgs& a) {
  if (op == ReduceOp::kAvg) return AvgReduceScatterv(send, recv, counts, t, a);
  if (auto* f = backend_.table().reduce_scatterv) {
    const weft_bk_op_t args = BkArgs(a);
    const weft_status_t s =
        f(comm_, send, recv, counts.data(), Dl(t), static_cast<int32_t>(op), &args, nullptr);
    if (!Declined(s, a)) return Check(s, "reduce_scatterv");
  }
  return composed::ReduceScatterv(*this, send, recv, counts, t, op, a);
}

Status Communicator::Alltoall(const void* send, void* recv, uint64_t count, DType t,
                              const OpArgs& a) {
  if (auto* f = backend_.table().alltoall) {
    const weft_bk_op_t args = BkArgs(a);
    return Check(f(comm_, send, recv, count, Dl(t), &args, nullptr), "alltoall");
  }
  std::vector<uint64_t> counts(size(), count), displs(size());
  for (int32_t i = 0; i < size(); ++i) displs[i] = count * i;
  return Alltoallv(send, counts, displs, recv, counts, displs, t, a);
}

Status Communicator::Alltoallv(const void* send, std::span<const uint64_t> sc,
                               std::span<const uint64_t> sd, void* recv,
                               std::span<const uint64_t> rc, std::span<const uint64_t> rd, DType t,
                               const OpArgs& a) {
  if (auto* f = backend_.table().alltoallv) {
    const weft_bk_op_t args = BkArgs(a);
    return Check(
        f(comm_, send, sc.data(), sd.data(), recv, rc.data(), rd.data(), Dl(t), &args, nullptr),
        "alltoallv");
  }
  const uint64_t item = ItemSize(t);
  return composed::Alltoallv(*this, send, Scaled(sc, item), Scaled(sd, item), recv,
                             Scaled(rc, item), Scaled(rd, item), a);
}

Status Communicator::Broadcast(void* buf, uint64_t count, DType t, int32_t root, const OpArgs& a) {
  if (auto* f = backend_.table().broadcast) {
    const weft_bk_op_t args = BkArgs(a);
    return Check(f(comm_, buf, count, Dl(t), root, &args, nullptr), "broadcast");
  }
  return composed::Broadcast(*this, buf, count * ItemSize(t), root, a);
}

Status Communicator::Barrier(const OpArgs& a) {
  if (auto* f = backend_.table().barrier) {
    const weft_bk_op_t args = BkArgs(a);
    return Check(f(comm_, &args, nullptr), "barrier");
  }
  return composed::Barrier(*this, a);
}

Status Communicator::Send(const void* buf, uint64_t count, DType t, int32_t peer, int64_t tag,
                          const OpArgs& a) {
  const weft_bk_op_t args = BkArgs(a);
  return Check(backend_.table().send(comm_, buf, count, Dl(t), peer, tag, &args, nullptr), "send");
}

Status Communicator::Recv(void* buf, uint64_t count, DType t, int32_t peer, int64_t tag,
                          const OpArgs& a) {
  const weft_bk_op_t args = BkArgs(a);
  return Check(backend_.table().recv(comm_, buf, count, Dl(t), peer, tag, &args, nullptr), "recv");
}

Result<std::unique_ptr<Communicator::Request>> Communicator::PostSend(const void* buf,
                                                                      uint64_t bytes, int32_t peer,
                                                                      int64_t tag,
                                                                      const OpArgs& a) {
  const weft_bk_op_t args = BkArgs(a);
  weft_bk_request_t* req = nullptr;
  WEFT_RETURN_IF_ERROR(
      Check(backend_.table().send(comm_, buf, bytes, kBytes, peer, tag, &args, &req), "send"));
  return std::make_unique<Request>(backend_.table(), req);
}

Result<std::unique_ptr<Communicator::Request>> Communicator::PostRecv(void* buf, uint64_t bytes,
                                                                      int32_t peer, int64_t tag,
                                                                      const OpArgs& a) {
  const weft_bk_op_t args = BkArgs(a);
  weft_bk_request_t* req = nullptr;
  WEFT_RETURN_IF_ERROR(
      Check(backend_.table().recv(comm_, buf, bytes, kBytes, peer, tag, &args, &req), "recv"));
  return std::make_unique<Request>(backend_.table(), req);
}

bool Communicator::HasStrided() const {
  const weft_backend_plugin_t& t = backend_.table();
  return t.send_strided != nullptr && t.recv_strided != nullptr &&
         (t.capabilities & WEFT_BK_CAP_STRIDED) != 0;
}

Result<std::unique_ptr<Communicator::Request>> Communicator::PostSendStrided(
    const void* base, const weft_bk_strided_t& l, int32_t peer, int64_t tag, const OpArgs& a) {
  const weft_bk_op_t args = BkArgs(a);
  weft_bk_request_t* req = nullptr;
  WEFT_RETURN_IF_ERROR(Check(backend_.table().send_strided(comm_, base, &l, peer, tag, &args, &req),
                             "send_strided"));
  return std::make_unique<Request>(backend_.table(), req);
}

Result<std::unique_ptr<Communicator::Request>> Communicator::PostRecvStrided(
    void* base, const weft_bk_strided_t& l, int32_t peer, int64_t tag, const OpArgs& a) {
  const weft_bk_op_t args = BkArgs(a);
  weft_bk_request_t* req = nullptr;
  WEFT_RETURN_IF_ERROR(Check(backend_.table().recv_strided(comm_, base, &l, peer, tag, &args, &req),
                             "recv_strided"));
  return std::make_unique<Request>(backend_.table(), req);
}

Status Communicator::WaitAll(std::span<std::unique_ptr<Request>> reqs, const OpArgs& a) {
  Status first;
  for (auto& r : reqs) {
    if (!r || !r->get()) continue;
    const weft_status_t s = backend_.table().request_wait(r->get(), RemainingMs(a.deadline));
    if (s == WEFT_IN_PROGRESS && first.ok())
      first = Status(Code::kTimeout, "point-to-point exchange passed its deadline");
    else if (s != WEFT_OK && s != WEFT_IN_PROGRESS && first.ok())
      first = backend_.Error(s, "wait");
  }
  if (!first.ok())
    for (auto& r : reqs)
      if (r && r->get()) backend_.table().request_cancel(r->get());
  return first;
}

void Communicator::Cancel(Request& req) {
  if (req.get()) backend_.table().request_cancel(req.get());
}

Result<bool> Communicator::Test(Request& req) {
  int32_t done = 0;
  WEFT_RETURN_IF_ERROR(Check(backend_.table().request_test(req.get(), &done), "test"));
  return done != 0;
}

Status Communicator::WaitOne(Request& req, int64_t timeout_ms, const OpArgs& a) {
  const int64_t left = RemainingMs(a.deadline);
  const bool op_deadline_first = timeout_ms < 0 || (left >= 0 && left <= timeout_ms);
  const weft_status_t s =
      backend_.table().request_wait(req.get(), op_deadline_first ? left : timeout_ms);
  if (s == WEFT_IN_PROGRESS) {
    if (!op_deadline_first) return Status(Code::kInProgress, "");
    backend_.table().request_cancel(req.get());
    return Status(Code::kTimeout, "point-to-point operation passed its deadline");
  }
  return s == WEFT_OK ? Status::Ok() : backend_.Error(s, "wait");
}

Status Communicator::AvgAllreduce(const void* send, void* recv, uint64_t count, DType t,
                                  const OpArgs& a) {
  // SPEC §2.4: accumulate in float64 (complex128) for types of 32 bits or fewer, so that
  // R→P(avg)→R returns x bit-exactly; divide once at the end. The accumulator lives, and the
  // conversions run, on the buffers' device.
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(a.device, a.stream));
  const DType acc_t = device::AccumulatorType(t);
  WEFT_ASSIGN_OR_RETURN(device::Buffer acc, q.Allocate(count * ItemSize(acc_t)));
  WEFT_RETURN_IF_ERROR(q.Widen(t, send, acc.data(), count));
  WEFT_RETURN_IF_ERROR(Allreduce(acc.data(), acc.data(), count, acc_t, ReduceOp::kSum, a));
  return q.Narrow(t, acc.data(), recv, count, size());
}

Status Communicator::AvgReduceScatterv(const void* send, void* recv,
                                       std::span<const uint64_t> counts, DType t, const OpArgs& a) {
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(a.device, a.stream));
  const DType acc_t = device::AccumulatorType(t);
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  WEFT_ASSIGN_OR_RETURN(device::Buffer acc, q.Allocate(total * ItemSize(acc_t)));
  WEFT_ASSIGN_OR_RETURN(device::Buffer mine, q.Allocate(counts[index_] * ItemSize(acc_t)));
  WEFT_RETURN_IF_ERROR(q.Widen(t, send, acc.data(), total));
  WEFT_RETURN_IF_ERROR(ReduceScatterv(acc.data(), mine.data(), counts, acc_t, ReduceOp::kSum, a));
  return q.Narrow(t, mine.data(), recv, counts[index_], size());
}

}  // namespace weft::backends
