#include <string>

#include "backends/ucx/coll/algorithms.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {

weft_status_t Reduction::Into(void* inout, const void* in, uint64_t bytes, std::string* why) const {
  if (bytes == 0) return WEFT_OK;
  if (kernel != nullptr) {
    kernel(inout, in, bytes >> item_shift);
    return WEFT_OK;
  }
  const weft_status_t s = host->reduce(host->host_data, dtype, op, inout, in, bytes / item);
  // The dtype and op were checked when the collective started; a failure here is internal.
  if (s != WEFT_OK) *why = "the host's reduction kernel failed (" + std::to_string(s) + ")";
  return s;
}

weft_status_t Reduction::InMemberOrder(bool below, void* mine, void* theirs, uint64_t bytes,
                                       std::string* why) const {
  if (below) return Into(mine, theirs, bytes, why);
  if (weft_status_t s = Into(theirs, mine, bytes, why)) return s;
  CopyBytes(mine, theirs, bytes);
  return WEFT_OK;
}

}  // namespace weft::backends::ucx_plugin
