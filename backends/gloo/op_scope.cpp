#include "backends/gloo/op_scope.hpp"

#include <algorithm>
#include <cstring>

#include "backends/gloo/dtype.hpp"
#include "backends/gloo/handles.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::gloo_plugin {

OpScope::OpScope(Comm& comm, const std::string& name, const weft_bk_op_t* args)
    : comm_(comm),
      args_(plugin_kit::ReadOpArgs(
          args, comm.default_timeout_ms() > 0 ? comm.default_timeout_ms() : -1)) {
  deadline_ = Deadline::FromTimeoutMs(args_.timeout_ms);
  op_ = name + " (seq " + std::to_string(args_.seq) + ", member " + std::to_string(comm.index()) +
        " of " + std::to_string(comm.size()) + ")";
}

weft_status_t OpScope::Begin() {
  if (weft_status_t s = comm_.CheckUsable(op_); s != WEFT_OK) return s;
  if (!plugin_kit::IsHostMemory(args_.device)) {
    const int32_t type = args_.device.device_type;
    return Fail(WEFT_ERR_UNSUPPORTED, "buffers on DLPack device type " + std::to_string(type) +
                                          "; the gloo backend moves host memory only (kDLCPU, "
                                          "kDLCUDAHost)");
  }
  return WEFT_OK;
}

weft_status_t OpScope::CheckBuffer(const char* what, const void* ptr, uint64_t count, uint64_t item,
                                   uint64_t* bytes) const {
  switch (plugin_kit::CheckBuffer(ptr, count, item, bytes)) {
    case plugin_kit::BufferCheck::kOk:
      return WEFT_OK;
    case plugin_kit::BufferCheck::kOverflow:
      return Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + ": " + std::to_string(count) +
                                                 " elements of " + std::to_string(item) +
                                                 " bytes overflow");
    case plugin_kit::BufferCheck::kNull:
      break;
  }
  return Fail(WEFT_ERR_INVALID_ARGUMENT,
              std::string(what) + " is NULL for " + std::to_string(count) + " elements");
}

weft_status_t OpScope::Fail(weft_status_t status, const std::string& what) const {
  return comm_.host().Fail(status, op_ + ": " + what);
}

weft_status_t OpScope::Complete(weft_bk_request_t** req) const {
  if (req == nullptr) return WEFT_OK;
  return HandOut(comm_.host(), nullptr, std::make_unique<DoneRequest>(), req);
}

}  // namespace weft::backends::gloo_plugin
