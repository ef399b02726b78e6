// The collectives: one NCCL call where NCCL has the op, NCCL groups for the v-forms (never
// padding); reductions NCCL cannot do exactly are declined (dtype.hpp).
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/nccl/plugin/comm.hpp"
#include "backends/nccl/plugin/dtype.hpp"
#include "backends/nccl/plugin/group.hpp"
#include "backends/nccl/plugin/launch.hpp"
#include "backends/nccl/plugin/ops.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::nccl_plugin::ops {
namespace {

#define NCCL_RETURN_IF(expr)         \
  do {                               \
    const weft_status_t s_ = (expr); \
    if (s_ != WEFT_OK) return s_;    \
  } while (0)

uint64_t Item(DLDataType t) { return uint64_t{t.bits} / 8 * (t.lanes ? t.lanes : 1u); }

// The bytes a v-form touches: the end of its furthest block, checked against overflow.
weft_status_t Extent(const Launch& l, int32_t n, const uint64_t* counts, const uint64_t* displs,
                     uint64_t item, const char* what, uint64_t* bytes) {
  *bytes = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (counts[i] == 0) continue;
    uint64_t end = 0, b = 0;
    if (__builtin_add_overflow(counts[i], displs ? displs[i] : 0, &end) ||
        __builtin_mul_overflow(end, item, &b))
      return l.Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + ": block " + std::to_string(i) +
                                                   " ends past 64 bits of bytes");
    *bytes = std::max(*bytes, b);
  }
  return WEFT_OK;
}

// A reduction NCCL cannot do exactly (dtype.hpp): declined, so that the host composes it from
// point-to-point and its device operations (backend_plugin.h, ABI 1.3).
weft_status_t Decline(const Launch& l, DLDataType t, int32_t op) {
  return l.Fail(WEFT_ERR_UNSUPPORTED, "NCCL has no exact reduction " + std::to_string(op) +
                                          " for dtype (code " + std::to_string(t.code) + ", " +
                                          std::to_string(t.bits) + " bits)");
}

}  // namespace

weft_status_t Allreduce(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                        DLDataType t, int32_t op, const weft_bk_op_t* a, weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  uint64_t bytes = 0;
  NCCL_RETURN_IF(Bytes(*l, send, count, t, "allreduce send", &bytes));
  NCCL_RETURN_IF(Bytes(*l, recv, count, t, "allreduce recv", &bytes));
  NcclReduction m;
  if (!MapReduction(t, op, &m)) return Decline(*l, t, op);
  l->staging.In(send, bytes);
  l->staging.Out(recv, bytes);
  return Run(*l, req, [&]() -> weft_status_t {
    if (count == 0) return WEFT_OK;
    return l->comm.Issue("ncclAllReduce", [&](ncclComm_t h) {
      return l->nccl().AllReduce(l->Dev(send), l->Dev(recv), count * m.per_element, m.type, m.op, h,
                                 l->stream);
    });
  });
}

weft_status_t Allgather(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                        DLDataType t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  uint64_t bytes = 0, all = 0;
  NCCL_RETURN_IF(Bytes(*l, send, count, t, "allgather send", &bytes));
  if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(l->comm.size()), &all))
    return l->Fail(WEFT_ERR_INVALID_ARGUMENT, "allgather: the gathered bytes overflow 64 bits");
  l->staging.In(send, bytes);
  l->staging.Out(recv, all);
  return Run(*l, req, [&]() -> weft_status_t {
    if (bytes == 0) return WEFT_OK;
    return l->comm.Issue("ncclAllGather", [&](ncclComm_t h) {
      return l->nccl().AllGather(l->Dev(send), l->Dev(recv), bytes, nccl::kUint8, h, l->stream);
    });
  });
}

// A group of broadcasts, one per member with data (NCCL has no all-gather-v): NCCL pipelines
// them on its rings, where sends to every peer would cross the slowest link n-1 times.
weft_status_t Allgatherv(weft_bk_comm_t* c, const void* send, uint64_t send_count, void* recv,
                         const uint64_t* counts, const uint64_t* displs, DLDataType t,
                         const weft_bk_op_t* a, weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  const int32_t n = l->comm.size(), me = l->comm.index();
  const uint64_t item = Item(t);
  uint64_t bytes = 0, all = 0;
  NCCL_RETURN_IF(Bytes(*l, send, send_count, t, "allgatherv send", &bytes));
  NCCL_RETURN_IF(Extent(*l, n, counts, displs, item, "allgatherv recv", &all));
  if (send_count != counts[me])
    return l->Fail(WEFT_ERR_INVALID_ARGUMENT,
                   "allgatherv: send_count " + std::to_string(send_count) + " is not recv_counts[" +
                       std::to_string(me) + "] " + std::to_string(counts[me]));
  l->staging.In(send, bytes);
  l->staging.Out(recv, all);
  char* out = static_cast<char*>(recv);
  return Run(*l, req, [&]() -> weft_status_t {
    if (all == 0) return WEFT_OK;
    return Group(*l, "ncclBroadcast (all-gather-v)", [&](ncclComm_t h) {
      for (int32_t i = 0; i < n; ++i) {
        if (counts[i] == 0) continue;
        char* block = out + displs[i] * item;
        const void* from = i == me ? l->Dev(send) : l->Dev(block);
        if (ncclResult_t r = l->nccl().Broadcast(from, l->Dev(block), counts[i] * item,
                                                 nccl::kUint8, i, h, l->stream);
            r != nccl::kSuccess)
          return r;
      }
      return nccl::kSuccess;
    });
  });
}

weft_status_t ReduceScatter(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                            DLDataType t, int32_t op, const weft_bk_op_t* a,
                            weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  const int32_t n = l->comm.size();
  uint64_t bytes = 0, all = 0;
  NCCL_RETURN_IF(Bytes(*l, recv, count, t, "reduce_scatter recv", &bytes));
  if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(n), &all))
    return l->Fail(WEFT_ERR_INVALID_ARGUMENT, "reduce_scatter: the send bytes overflow 64 bits");
  NcclReduction m;
  if (!MapReduction(t, op, &m)) return Decline(*l, t, op);
  l->staging.In(send, all);
  l->staging.Out(recv, bytes);
  return Run(*l, req, [&]() -> weft_status_t {
    if (count == 0) return WEFT_OK;
    return l->comm.Issue("ncclReduceScatter", [&](ncclComm_t h) {
      return l->nccl().ReduceScatter(l->Dev(send), l->Dev(recv), count * m.per_element, m.type,
                                     m.op, h, l->stream);
    });
  });
}

// A group of reductions to each member in turn (NCCL has no reduce-scatter-v).
weft_status_t ReduceScatterv(weft_bk_comm_t* c, const void* send, void* recv,
                             const uint64_t* counts, DLDataType t, int32_t op,
                             const weft_bk_op_t* a, weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  const int32_t n = l->comm.size(), me = l->comm.index();
  const uint64_t item = Item(t);
  std::vector<uint64_t> displs(static_cast<size_t>(n));
  for (int32_t i = 1; i < n; ++i) {
    if (__builtin_add_overflow(displs[i - 1], counts[i - 1], &displs[i]))
      return l->Fail(WEFT_ERR_INVALID_ARGUMENT, "reduce_scatterv: the counts overflow 64 bits");
  }
  uint64_t all = 0, bytes = 0;
  NCCL_RETURN_IF(Extent(*l, n, counts, displs.data(), item, "reduce_scatterv send", &all));
  NCCL_RETURN_IF(Bytes(*l, recv, counts[me], t, "reduce_scatterv recv", &bytes));
  NcclReduction m;
  if (!MapReduction(t, op, &m)) return Decline(*l, t, op);
  l->staging.In(send, all);
  l->staging.Out(recv, bytes);
  const char* in = static_cast<const char*>(send);
  return Run(*l, req, [&]() -> weft_status_t {
    if (all == 0) return WEFT_OK;
    return Group(*l, "ncclReduce (reduce-scatter-v)", [&](ncclComm_t h) {
      for (int32_t i = 0; i < n; ++i) {
        if (counts[i] == 0) continue;
        void* block = l->Dev(in + displs[i] * item);
        // recvbuff matters on the root only.
        void* to = i == me ? l->Dev(recv) : block;
        if (ncclResult_t r = l->nccl().Reduce(block, to, counts[i] * m.per_element, m.type, m.op, i,
                                              h, l->stream);
            r != nccl::kSuccess)
          return r;
      }
      return nccl::kSuccess;
    });
  });
}

weft_status_t Alltoall(weft_bk_comm_t* c, const void* send, void* recv, uint64_t count,
                       DLDataType t, const weft_bk_op_t* a, weft_bk_request_t** req) {
  const int32_t n = Of(c).size();
  if (Of(c).state().nccl().AlltoAll == nullptr) {
    std::vector<uint64_t> counts(static_cast<size_t>(n), count), displs(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) displs[i] = count * static_cast<uint64_t>(i);
    return Alltoallv(c, send, counts.data(), displs.data(), recv, counts.data(), displs.data(), t,
                     a, req);
  }
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  uint64_t bytes = 0, all = 0;
  NCCL_RETURN_IF(Bytes(*l, send, count, t, "alltoall block", &bytes));
  if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(n), &all))
    return l->Fail(WEFT_ERR_INVALID_ARGUMENT, "alltoall: the bytes overflow 64 bits");
  l->staging.In(send, all);
  l->staging.Out(recv, all);
  return Run(*l, req, [&]() -> weft_status_t {
    if (bytes == 0) return WEFT_OK;
    return l->comm.Issue("ncclAlltoAll", [&](ncclComm_t h) {
      return l->nccl().AlltoAll(l->Dev(send), l->Dev(recv), bytes, nccl::kUint8, h, l->stream);
    });
  });
}

weft_status_t Alltoallv(weft_bk_comm_t* c, const void* send, const uint64_t* send_counts,
                        const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                        const uint64_t* recv_displs, DLDataType t, const weft_bk_op_t* a,
                        weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  const int32_t n = l->comm.size(), me = l->comm.index();
  const uint64_t item = Item(t);
  uint64_t in_bytes = 0, out_bytes = 0;
  NCCL_RETURN_IF(Extent(*l, n, send_counts, send_displs, item, "alltoallv send", &in_bytes));
  NCCL_RETURN_IF(Extent(*l, n, recv_counts, recv_displs, item, "alltoallv recv", &out_bytes));
  if (send_counts[me] != recv_counts[me])
    return l->Fail(WEFT_ERR_INVALID_ARGUMENT,
                   "alltoallv: this member sends itself " + std::to_string(send_counts[me]) +
                       " elements but receives " + std::to_string(recv_counts[me]));
  l->staging.In(send, in_bytes);
  l->staging.Out(recv, out_bytes);
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  return Run(*l, req, [&]() -> weft_status_t {
    std::vector<Transfer> moves;
    for (int32_t p = 0; p < n; ++p) {
      moves.push_back(
          {true, const_cast<char*>(in) + send_displs[p] * item, send_counts[p] * item, p});
      moves.push_back({false, out + recv_displs[p] * item, recv_counts[p] * item, p});
    }
    return Exchange(*l, "alltoallv", moves);
  });
}

weft_status_t Broadcast(weft_bk_comm_t* c, void* buf, uint64_t count, DLDataType t, int32_t root,
                        const weft_bk_op_t* a, weft_bk_request_t** req) {
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), a, &l));
  uint64_t bytes = 0;
  NCCL_RETURN_IF(Bytes(*l, buf, count, t, "broadcast buffer", &bytes));
  if (root < 0 || root >= l->comm.size())
    return l->Fail(WEFT_ERR_INVALID_ARGUMENT, "broadcast: root " + std::to_string(root) +
                                                  " is not a member of a group of " +
                                                  std::to_string(l->comm.size()));
  // The root's data goes in, everyone else's comes out.
  if (root == l->comm.index())
    l->staging.In(buf, bytes);
  else
    l->staging.Out(buf, bytes);
  return Run(*l, req, [&]() -> weft_status_t {
    if (bytes == 0) return WEFT_OK;
    return l->comm.Issue("ncclBroadcast", [&](ncclComm_t h) {
      return l->nccl().Broadcast(l->Dev(buf), l->Dev(buf), bytes, nccl::kUint8, root, h, l->stream);
    });
  });
}

// An all-reduce of one byte of scratch, waited for on the host even without host buffers.
weft_status_t Barrier(weft_bk_comm_t* c, const weft_bk_op_t* a, weft_bk_request_t** req) {
  weft_bk_op_t host_args = plugin_kit::ReadOpArgs(a, Of(c).state().default_timeout_ms());
  host_args.device = DLDevice{kDLCPU, 0};
  host_args.stream = nullptr;
  std::unique_ptr<Launch> l;
  NCCL_RETURN_IF(Start(Of(c), &host_args, &l));
  Lease byte;
  NCCL_RETURN_IF(l->comm.Acquire(1, &byte));
  char* const flag = byte.get();
  l->staging.Hold(std::move(byte));  // until the stream has passed the op
  return Run(*l, req, [&]() -> weft_status_t {
    return l->comm.Issue("ncclAllReduce (barrier)", [&](ncclComm_t h) {
      return l->nccl().AllReduce(flag, flag, 1, nccl::kUint8, nccl::kMax, h, l->stream);
    });
  });
}

}  // namespace weft::backends::nccl_plugin::ops
