// allreduce: Gloo's ring allreduce, reducing with host->reduce so that every backend rounds
// the same way.
#include <cstring>

#include <gloo/allreduce.h>

#include "backends/gloo/dtype.hpp"
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
  const weft_status_t s =
      scope.Run([&] { RunGlooAllreduce(scope, comm, send, recv, count, dtype, op); });
  return s != WEFT_OK ? s : scope.Complete(req);
}

}  // namespace weft::backends::gloo_plugin
