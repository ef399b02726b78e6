// broadcast (Gloo's binomial tree from the root) and barrier (Gloo's dissemination barrier).
#include <gloo/barrier.h>
#include <gloo/broadcast.h>

#include "backends/gloo/dtype.hpp"
#include "backends/gloo/op_scope.hpp"
#include "backends/gloo/ops.hpp"

namespace weft::backends::gloo_plugin {

weft_status_t Broadcast(Comm& comm, void* buf, uint64_t count, DLDataType dtype, int32_t root,
                        const weft_bk_op_t* args, weft_bk_request_t** req) {
  OpScope scope(comm, "broadcast from member " + std::to_string(root), args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  const uint64_t item = ItemBytes(dtype);
  if (item == 0) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, DtypeText(dtype) + " is not bytes");
  if (root < 0 || root >= comm.size()) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "root outside the group");
  }
  uint64_t bytes = 0;
  if (weft_status_t s = scope.CheckBuffer("buf", buf, count, item, &bytes); s) return s;
  if (count == 0 || comm.size() == 1) return scope.Complete(req);
  const weft_status_t s = scope.Run([&] {
    ::gloo::BroadcastOptions opts(comm.mesh());
    opts.setOutput(static_cast<uint8_t*>(buf), bytes);
    opts.setRoot(root);
    opts.setTag(comm.NextCollectiveTag());
    opts.setTimeout(scope.gloo_timeout());
    ::gloo::broadcast(opts);
  });
  return s != WEFT_OK ? s : scope.Complete(req);
}

weft_status_t Barrier(Comm& comm, const weft_bk_op_t* args, weft_bk_request_t** req) {
  OpScope scope(comm, "barrier", args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  if (comm.size() == 1) return scope.Complete(req);
  const weft_status_t s = scope.Run([&] {
    ::gloo::BarrierOptions opts(comm.mesh());
    opts.setTag(comm.NextCollectiveTag());
    opts.setTimeout(scope.gloo_timeout());
    ::gloo::barrier(opts);
  });
  return s != WEFT_OK ? s : scope.Complete(req);
}

}  // namespace weft::backends::gloo_plugin
