#include "backends/gloo/handles.hpp"
#include "common/clock.hpp"

#include <new>

namespace weft::backends::gloo_plugin {

weft_status_t HandOut(const Host& host, std::shared_ptr<Comm> comm,
                      std::unique_ptr<Request> request, weft_bk_request_t** out) {
  auto* handle = new (std::nothrow) weft_bk_request{std::move(comm), nullptr};
  if (handle == nullptr) {
    // The operation is already posted; without a handle nobody could wait for it, so it is
    // finished here rather than leaked into Gloo's queues.
    request->WaitUntil(kNoDeadline);
    return host.Fail(WEFT_ERR_OUT_OF_MEMORY, "no memory for a request handle");
  }
  handle->request = std::move(request);
  *out = handle;
  return WEFT_OK;
}

}  // namespace weft::backends::gloo_plugin
