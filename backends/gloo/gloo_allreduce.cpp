// allreduce: Gloo's ring allreduce, reducing with host->reduce so that every backend rounds
// the same way.
#include <chrono>
#include <cstring>
#include <memory>

#include <gloo/allreduce.h>
#include <gloo/common/error.h>

#include "backends/gloo/dtype.hpp"
#include "backends/gloo/gloo_guard.hpp"
#include "backends/gloo/op_scope.hpp"
#include "backends/gloo/ops.hpp"
#include "backends/gloo/staging.hpp"

namespace weft::backends::gloo_plugin {
namespace {

bool IsPluginReduceOp(int32_t op) {
  return op == WEFT_REDUCE_SUM || op == WEFT_REDUCE_MAX || op == WEFT_REDUCE_MIN ||
         op == WEFT_REDUCE_PROD;
}

// Gloo asks for c = a op b on n elements, with c possibly aliasing a or b; the host computes
// inout = inout op in. All four ops are commutative, so c == b needs no copy either.
::gloo::AllreduceOptions::Func HostReduction(const Host& host, DLDataType dtype, int32_t op) {
  const size_t item = ItemBytes(dtype);
  return [&host, dtype, op, item](void* c, const void* a, const void* b, size_t n) {
    if (c == b) {
      b = a;
    } else if (c != a) {
      std::memcpy(c, a, n * item);
    }
    const auto& api = host.api();
    const weft_status_t s = api.reduce(api.host_data, dtype, op, c, b, n);
    if (s != WEFT_OK) {
      throw HostCallbackFailure(s, "host reduce of " + std::to_string(n) + " elements of " +
                                       DtypeText(dtype) + " failed with " + StatusName(s));
    }
  };
}

// Two members: one exchange of the whole buffer and a local reduce. Gloo's ring takes two
// rounds of half the bytes each, the same bytes at a second latency, and Gloo's TCP latency is
// hundreds of microseconds on a small VM (bench/python/dtensor_vs_weft.py, 2 ranks, P->R of
// 1 MiB, median of 3 alternating runs: 1.81 ms against torch's 2.72 ms, where the ring took
// 3.75 ms against 3.20). Both members compute member 0's data op member 1's, in that order, so
// they get the same bits whatever the op does with NaNs and signed zeros.
// Up to this many bytes: above, the ring's segments overlap the reduce with the transfer and
// win (P->R of 16 MiB: 13-15 ms by the ring against 18-22 ms in one exchange; 4 MiB: even).
constexpr uint64_t kPairAllreduceMaxBytes = uint64_t{1} << 20;
constexpr uint64_t kPairAllreduceSlot = uint64_t{0x83} << 56;

void Await(GuardedBuffer& buffer, bool recv, std::chrono::milliseconds timeout) {
  const bool done = recv ? buffer.waitRecv(nullptr, timeout) : buffer.waitSend(nullptr, timeout);
  if (!done) throw ::gloo::IoException("wait interrupted");
}

void RunPairAllreduce(const OpScope& scope, Comm& comm, const void* send, void* recv, char* theirs,
                      uint64_t count, DLDataType dtype, int32_t op) {
  const size_t bytes = count * ItemBytes(dtype);
  const std::shared_ptr<GuardedContext> ctx = comm.mesh()->guarded();
  auto out = ctx->CreateGuarded(const_cast<void*>(NonNull(send)), bytes);
  auto in = ctx->CreateGuarded(theirs, bytes);
  const uint64_t slot = kPairAllreduceSlot | comm.NextCollectiveTag();
  const int peer = 1 - comm.index();
  in->recv(peer, slot, 0, bytes);
  out->send(peer, slot, 0, bytes);
  Await(*in, true, scope.gloo_timeout());
  Await(*out, false, scope.gloo_timeout());  // before recv, which may be send, is written
  const auto& api = comm.host().api();
  auto fold = [&](void* inout, const void* other) {
    const weft_status_t s = api.reduce(api.host_data, dtype, op, inout, other, count);
    if (s != WEFT_OK)
      throw HostCallbackFailure(s, "host reduce of " + std::to_string(count) + " elements of " +
                                       DtypeText(dtype) + " failed with " + StatusName(s));
  };
  if (comm.index() == 0) {
    if (send != recv) std::memcpy(recv, send, bytes);
    fold(recv, theirs);
  } else if (theirs == recv) {
    fold(recv, send);  // member 0's data landed in recv
  } else {
    fold(theirs, recv);  // in place: member 0's data op ours, then into place
    std::memcpy(recv, theirs, bytes);
  }
}

weft_status_t PairAllreduce(OpScope& scope, Comm& comm, const void* send, void* recv,
                            uint64_t count, DLDataType dtype, int32_t op, weft_bk_request_t** req) {
  // Member 1 receives member 0's data straight into recv unless that is its input too.
  const bool scratch = comm.index() == 0 || send == recv;
  Staging theirs(comm.host(), scratch ? count * ItemBytes(dtype) : 0);
  if (!theirs.ok()) return scope.Fail(WEFT_ERR_OUT_OF_MEMORY, "the peer's data");
  char* into = scratch ? theirs.data() : static_cast<char*>(recv);
  const weft_status_t s =
      scope.Run([&] { RunPairAllreduce(scope, comm, send, recv, into, count, dtype, op); });
  return s != WEFT_OK ? s : scope.Complete(req);
}

void RunGlooAllreduce(const OpScope& scope, Comm& comm, const void* send, void* recv,
                      uint64_t count, DLDataType dtype, int32_t op) {
  WithCarrier(ItemBytes(dtype), [&](auto carrier) {
    using T = typename decltype(carrier)::type;
    ::gloo::AllreduceOptions opts(comm.mesh());
    // Without an input Gloo reduces the output in place.
    if (send != recv) opts.setInput(static_cast<T*>(NonNull(send)), count);
    opts.setOutput(static_cast<T*>(recv), count);
    opts.setReduceFunction(HostReduction(comm.host(), dtype, op));
    opts.setTag(comm.NextCollectiveTag());
    opts.setTimeout(scope.gloo_timeout());
    ::gloo::allreduce(opts);
  });
}

}  // namespace

weft_status_t Allreduce(Comm& comm, const void* send, void* recv, uint64_t count, DLDataType dtype,
                        int32_t op, const weft_bk_op_t* args, weft_bk_request_t** req) {
  OpScope scope(comm, "allreduce", args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  const size_t item = ItemBytes(dtype);
  if (!WithCarrier(item, [](auto) {})) {
    return scope.Fail(WEFT_ERR_UNSUPPORTED, DtypeText(dtype) + " cannot be reduced");
  }
  if (!IsPluginReduceOp(op)) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT,
                      "reduce op " + std::to_string(op) + " (plugins get sum, max, min, prod)");
  }
  uint64_t bytes = 0;
  if (weft_status_t s = scope.CheckBuffer("send", send, count, item, &bytes); s != WEFT_OK) {
    return s;
  }
  if (weft_status_t s = scope.CheckBuffer("recv", recv, count, item, &bytes); s != WEFT_OK) {
    return s;
  }
  // count is the same on every member, so all of them skip together.
  if (count == 0) return scope.Complete(req);
  if (comm.size() == 1) {
    if (send != recv) std::memcpy(recv, send, bytes);
    return scope.Complete(req);
  }
  if (comm.size() == 2 && bytes <= kPairAllreduceMaxBytes)
    return PairAllreduce(scope, comm, send, recv, count, dtype, op, req);
  const weft_status_t s =
      scope.Run([&] { RunGlooAllreduce(scope, comm, send, recv, count, dtype, op); });
  return s != WEFT_OK ? s : scope.Complete(req);
}

}  // namespace weft::backends::gloo_plugin
