#include <string>

#include "backends/ucx/coll/algorithms.hpp"

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

}  // namespace weft::backends::ucx_plugin
