// --raw gloo when Weft is built without the gloo backend (WEFT_BACKENDS lacks gloo): refused.
#include "tools/collbench/raw_gloo.hpp"

namespace weft::collbench {

std::unique_ptr<RawGloo> RawGloo::Connect(weft_context_t*, int32_t, int32_t, std::string* error) {
  *error = "--raw gloo: collbench was built without Gloo (WEFT_BACKENDS lacks gloo)";
  return nullptr;
}

bool RawGloo::Supports(const Case&) const { return false; }
const char* RawGloo::Describe(Op) const { return "gloo"; }
void RawGloo::Run(Case&) {}
void RawGloo::Barrier() {}

}  // namespace weft::collbench
