#include "backends/nccl/plugin/group.hpp"

namespace weft::backends::nccl_plugin {

weft_status_t Exchange(Launch& l, const char* what, const std::vector<Transfer>& moves) {
  const int32_t me = l.comm.index();
  std::vector<const Transfer*> to_self, from_self;
  bool remote = false;
  for (const Transfer& t : moves) {
    if (t.bytes == 0) continue;
    if (t.peer == me)
      (t.send ? to_self : from_self).push_back(&t);
    else
      remote = true;
  }
  if (to_self.size() != from_self.size())
    return l.Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + ": " +
                                                 std::to_string(to_self.size()) +
                                                 " messages to this member itself but " +
                                                 std::to_string(from_self.size()) + " from it");
  const CudaApi& cuda = l.comm.state().cuda();
  for (size_t k = 0; k < to_self.size(); ++k) {
    if (to_self[k]->bytes != from_self[k]->bytes)
      return l.Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + ": this member sends itself " +
                                                   std::to_string(to_self[k]->bytes) +
                                                   " bytes but receives " +
                                                   std::to_string(from_self[k]->bytes));
    const cudaError_t e =
        cuda.MemcpyAsync(l.Dev(from_self[k]->buf), l.Dev(to_self[k]->buf), to_self[k]->bytes,
                         cuda::kMemcpyDeviceToDevice, l.stream);
    if (e != cuda::kSuccess) {
      cuda.GetLastError();
      return l.Fail(WEFT_ERR_BACKEND, cuda.Describe("cudaMemcpyAsync", e));
    }
  }
  if (!remote) return WEFT_OK;
  return Group(l, what, [&](ncclComm_t h) {
    for (const Transfer& t : moves) {
      if (t.bytes == 0 || t.peer == me) continue;
      const ncclResult_t r =
          t.send ? l.nccl().Send(l.Dev(t.buf), t.bytes, nccl::kUint8, t.peer, h, l.stream)
                 : l.nccl().Recv(l.Dev(t.buf), t.bytes, nccl::kUint8, t.peer, h, l.stream);
      if (r != nccl::kSuccess) return r;
    }
    return nccl::kSuccess;
  });
}

}  // namespace weft::backends::nccl_plugin
