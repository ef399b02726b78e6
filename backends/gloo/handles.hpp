// The plugin's definitions of the ABI's opaque handle types, and how requests are handed out.
#pragma once

#include <memory>

#include <weft/backend_plugin.h>

#include "backends/gloo/gloo_comm.hpp"
#include "backends/gloo/plugin_state.hpp"
#include "backends/gloo/request.hpp"

// The ABI declares these opaque; the plugin owns their layout. The void* state of init()
// points to a StateHandle.
struct weft_bk_comm {
  std::shared_ptr<weft::backends::gloo_plugin::Comm> comm;
};

struct weft_bk_request {
  std::shared_ptr<weft::backends::gloo_plugin::Comm> comm;  // null for complete requests
  std::unique_ptr<weft::backends::gloo_plugin::Request> request;
};

namespace weft::backends::gloo_plugin {

struct StateHandle {
  std::shared_ptr<State> state;
};

// *out = a handle owning `request`. WEFT_ERR_OUT_OF_MEMORY (reported) if it cannot be made.
weft_status_t HandOut(const Host& host, std::shared_ptr<Comm> comm,
                      std::unique_ptr<Request> request, weft_bk_request_t** out);

}  // namespace weft::backends::gloo_plugin
