// allgather and allgatherv: Gloo's ring algorithms. In place when send is this member's
// block of recv. Gloo's allgatherv wants the blocks packed in member order; other
// displacements go through a staging buffer.
#include <algorithm>
#include <cstring>

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>

#include "backends/gloo/dtype.hpp"
#include "backends/gloo/op_scope.hpp"
#include "backends/gloo/ops.hpp"
#include "backends/gloo/staging.hpp"

namespace weft::backends::gloo_plugin {
namespace {

void RunGlooAllgather(const OpScope& scope, Comm& comm, const void* send, bool in_place, void* recv,
                      uint64_t bytes) {
  ::gloo::AllgatherOptions opts(comm.mesh());
  if (!in_place) opts.setInput(static_cast<uint8_t*>(NonNull(send)), bytes);
  opts.setOutput(static_cast<uint8_t*>(recv), bytes * comm.size());
  opts.setTag(comm.NextCollectiveTag());
  opts.setTimeout(scope.gloo_timeout());
  ::gloo::allgather(opts);
}

// Gathers this member's `mine` into `packed` (blocks in member order, sized b.total).
void RunGlooAllgatherv(const OpScope& scope, Comm& comm, const void* mine, bool in_place,
                       char* packed, const Blocks& b) {
  ::gloo::AllgathervOptions opts(comm.mesh());
  if (!in_place) opts.setInput(static_cast<uint8_t*>(NonNull(mine)), b.bytes[comm.index()]);
  opts.setOutput(reinterpret_cast<uint8_t*>(NonNull(packed)),
                 std::vector<size_t>(b.bytes.begin(), b.bytes.end()));
  opts.setTag(comm.NextCollectiveTag());
  opts.setTimeout(scope.gloo_timeout());
  ::gloo::allgatherv(opts);
}

weft_status_t CheckAllgatherv(const OpScope& scope, const Comm& comm, const void* send,
                              uint64_t send_count, const void* recv, const uint64_t* counts,
                              const uint64_t* displs, DLDataType dtype, Blocks* b) {
  const uint64_t item = ItemBytes(dtype);
  if (item == 0) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, DtypeText(dtype) + " is not bytes");
  if (counts == nullptr) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "recv_counts is NULL");
  uint64_t send_bytes = 0;
  if (weft_status_t s = scope.CheckBuffer("send", send, send_count, item, &send_bytes); s) {
    return s;
  }
  if (!MakeBlocks(counts, displs, comm.size(), item, b)) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "recv_counts/recv_displs overflow");
  }
  if (send_count != counts[comm.index()]) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "send_count " + std::to_string(send_count) +
                                                     " but recv_counts[" +
                                                     std::to_string(comm.index()) + "] " +
                                                     std::to_string(counts[comm.index()]));
  }
  if (recv == nullptr && b->extent > 0) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "recv is NULL");
  }
  return WEFT_OK;
}

}  // namespace

weft_status_t Allgather(Comm& comm, const void* send, void* recv, uint64_t count, DLDataType dtype,
                        const weft_bk_op_t* args, weft_bk_request_t** req) {
  OpScope scope(comm, "allgather", args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  const uint64_t item = ItemBytes(dtype);
  if (item == 0) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, DtypeText(dtype) + " is not bytes");
  uint64_t bytes = 0, total = 0;
  if (weft_status_t s = scope.CheckBuffer("send", send, count, item, &bytes); s) return s;
  if (!CheckedMul(bytes, comm.size(), &total)) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "recv of " + std::to_string(comm.size()) + " x " +
                                                     std::to_string(count) + " overflows");
  }
  if (weft_status_t s = scope.CheckBuffer("recv", recv, total, 1, &total); s) return s;
  if (count == 0) return scope.Complete(req);
  char* mine = static_cast<char*>(recv) + bytes * comm.index();
  const bool in_place = send == mine;
  if (comm.size() == 1) {
    if (!in_place) std::memcpy(recv, send, bytes);
    return scope.Complete(req);
  }
  const weft_status_t s =
      scope.Run([&] { RunGlooAllgather(scope, comm, send, in_place, recv, bytes); });
  return s != WEFT_OK ? s : scope.Complete(req);
}

weft_status_t Allgatherv(Comm& comm, const void* send, uint64_t send_count, void* recv,
                         const uint64_t* recv_counts, const uint64_t* recv_displs, DLDataType dtype,
                         const weft_bk_op_t* args, weft_bk_request_t** req) {
  OpScope scope(comm, "allgatherv", args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  Blocks b;
  if (weft_status_t s = CheckAllgatherv(scope, comm, send, send_count, recv, recv_counts,
                                        recv_displs, dtype, &b)) {
    return s;
  }
  // recv_counts is the same on every member, so all of them skip together.
  if (b.total == 0) return scope.Complete(req);
  char* out = static_cast<char*>(recv);
  char* mine = out + b.offsets[comm.index()];
  // The API's in-place form puts the contribution at the start of recv: move it to its block
  // first (Gloo copies input to output with memcpy, which must not overlap).
  const char* from = static_cast<const char*>(send);
  const uint64_t own = b.bytes[comm.index()];
  uint64_t extent = 0;
  for (size_t i = 0; i < b.bytes.size(); ++i) extent = std::max(extent, b.offsets[i] + b.bytes[i]);
  if (from != mine && own != 0 && from < out + extent && out < from + own) {
    std::memmove(mine, send, own);
    send = mine;
  }
  const bool in_place = send == mine;
  if (comm.size() == 1) {
    if (!in_place && b.bytes[0] > 0) std::memcpy(mine, send, b.bytes[0]);
    return scope.Complete(req);
  }
  if (b.packed) {
    const weft_status_t s =
        scope.Run([&] { RunGlooAllgatherv(scope, comm, send, in_place, out, b); });
    return s != WEFT_OK ? s : scope.Complete(req);
  }
  Staging packed(comm.host(), b.total);
  if (!packed.ok()) return scope.Fail(WEFT_ERR_OUT_OF_MEMORY, "staging for gapped recv_displs");
  const void* input = in_place ? static_cast<const void*>(mine) : send;
  const weft_status_t s =
      scope.Run([&] { RunGlooAllgatherv(scope, comm, input, false, packed.data(), b); });
  if (s != WEFT_OK) return s;
  UnpackBlocks(b, packed.data(), out);
  return scope.Complete(req);
}

}  // namespace weft::backends::gloo_plugin
