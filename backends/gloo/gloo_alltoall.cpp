// alltoall and alltoallv: Gloo's pairwise exchanges. Gloo reads the input while it writes
// the output, so in-place calls stage the input; Gloo's alltoallv wants the blocks packed in
// member order, so other displacements are packed and unpacked around it.
#include <cstring>

#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>

#include "backends/gloo/dtype.hpp"
#include "backends/gloo/op_scope.hpp"
#include "backends/gloo/ops.hpp"
#include "backends/gloo/staging.hpp"

namespace weft::backends::gloo_plugin {
namespace {

void RunGlooAlltoall(const OpScope& scope, Comm& comm, const void* send, void* recv,
                     uint64_t total) {
  ::gloo::AlltoallOptions opts(comm.mesh());
  opts.setInput(static_cast<uint8_t*>(NonNull(send)), total);
  opts.setOutput(static_cast<uint8_t*>(recv), total);
  opts.setTag(comm.NextCollectiveTag());
  opts.setTimeout(scope.gloo_timeout());
  ::gloo::alltoall(opts);
}

// `in` and `out` are packed as `sb` and `rb` say.
void RunGlooAlltoallv(const OpScope& scope, Comm& comm, const char* in, const Blocks& sb, char* out,
                      const Blocks& rb) {
  ::gloo::AlltoallvOptions opts(comm.mesh());
  opts.setInput(static_cast<uint8_t*>(NonNull(in)), sb.SignedBytes());
  opts.setOutput(static_cast<uint8_t*>(NonNull(out)), rb.SignedBytes());
  opts.setTag(comm.NextCollectiveTag());
  opts.setTimeout(scope.gloo_timeout());
  ::gloo::alltoallv(opts);
}

weft_status_t CheckAlltoallv(const OpScope& scope, const Comm& comm, const void* send,
                             const uint64_t* send_counts, const uint64_t* send_displs,
                             const void* recv, const uint64_t* recv_counts,
                             const uint64_t* recv_displs, DLDataType dtype, Blocks* sb,
                             Blocks* rb) {
  const uint64_t item = ItemBytes(dtype);
  if (item == 0) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, DtypeText(dtype) + " is not bytes");
  if (send_counts == nullptr || recv_counts == nullptr) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "send_counts or recv_counts is NULL");
  }
  if (!MakeBlocks(send_counts, send_displs, comm.size(), item, sb) ||
      !MakeBlocks(recv_counts, recv_displs, comm.size(), item, rb)) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "counts/displacements overflow");
  }
  const int32_t me = comm.index();
  if (send_counts[me] != recv_counts[me]) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "send_counts[" + std::to_string(me) + "] " +
                                                     std::to_string(send_counts[me]) +
                                                     " but recv_counts[" + std::to_string(me) +
                                                     "] " + std::to_string(recv_counts[me]));
  }
  if ((send == nullptr && sb->extent > 0) || (recv == nullptr && rb->extent > 0)) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "send or recv is NULL");
  }
  return WEFT_OK;
}

// Gloo's part of alltoallv, with staging where the caller's layout is not Gloo's.
weft_status_t StagedAlltoallv(OpScope& scope, Comm& comm, const char* send, const Blocks& sb,
                              char* recv, const Blocks& rb) {
  const bool stage_in = !sb.packed || send == recv;
  Staging in(comm.host(), stage_in ? sb.total : 0);
  Staging out(comm.host(), rb.packed ? 0 : rb.total);
  if (!in.ok() || !out.ok()) return scope.Fail(WEFT_ERR_OUT_OF_MEMORY, "staging buffers");
  if (stage_in) PackBlocks(sb, send, in.data());
  const char* input = stage_in ? in.data() : send;
  char* output = rb.packed ? recv : out.data();
  const weft_status_t s = scope.Run([&] { RunGlooAlltoallv(scope, comm, input, sb, output, rb); });
  if (s != WEFT_OK) return s;
  if (!rb.packed) UnpackBlocks(rb, out.data(), recv);
  return WEFT_OK;
}

}  // namespace

weft_status_t Alltoall(Comm& comm, const void* send, void* recv, uint64_t count, DLDataType dtype,
                       const weft_bk_op_t* args, weft_bk_request_t** req) {
  OpScope scope(comm, "alltoall", args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  const uint64_t item = ItemBytes(dtype);
  if (item == 0) return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, DtypeText(dtype) + " is not bytes");
  uint64_t block = 0, total = 0;
  if (!CheckedMul(count, item, &block) || !CheckedMul(block, comm.size(), &total)) {
    return scope.Fail(WEFT_ERR_INVALID_ARGUMENT, "count " + std::to_string(count) + " overflows");
  }
  if (weft_status_t s = scope.CheckBuffer("send", send, total, 1, &total); s) return s;
  if (weft_status_t s = scope.CheckBuffer("recv", recv, total, 1, &total); s) return s;
  if (count == 0) return scope.Complete(req);
  if (comm.size() == 1) {
    if (send != recv) std::memcpy(recv, send, total);
    return scope.Complete(req);
  }
  const bool in_place = send == recv;
  Staging copy(comm.host(), in_place ? total : 0);
  if (!copy.ok()) return scope.Fail(WEFT_ERR_OUT_OF_MEMORY, "staging for in-place alltoall");
  if (in_place) std::memcpy(copy.data(), send, total);
  const void* input = in_place ? copy.data() : send;
  const weft_status_t s = scope.Run([&] { RunGlooAlltoall(scope, comm, input, recv, total); });
  return s != WEFT_OK ? s : scope.Complete(req);
}

weft_status_t Alltoallv(Comm& comm, const void* send, const uint64_t* send_counts,
                        const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                        const uint64_t* recv_displs, DLDataType dtype, const weft_bk_op_t* args,
                        weft_bk_request_t** req) {
  OpScope scope(comm, "alltoallv", args);
  if (weft_status_t s = scope.Begin(); s != WEFT_OK) return s;
  Blocks sb, rb;
  if (weft_status_t s = CheckAlltoallv(scope, comm, send, send_counts, send_displs, recv,
                                       recv_counts, recv_displs, dtype, &sb, &rb)) {
    return s;
  }
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  if (comm.size() == 1) {
    if (sb.bytes[0] > 0) std::memmove(out + rb.offsets[0], in + sb.offsets[0], sb.bytes[0]);
    return scope.Complete(req);
  }
  // Counts differ between members, so no member may skip: even an empty exchange runs.
  const weft_status_t s = StagedAlltoallv(scope, comm, in, sb, out, rb);
  return s != WEFT_OK ? s : scope.Complete(req);
}

}  // namespace weft::backends::gloo_plugin
