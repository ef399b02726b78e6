#include "api/src/byte_range.hpp"

#include <cstdio>
#include <string>

namespace weft::api {

Status ByteRangeError(const DLTensor* t, const char* name, uint64_t span) {
  char data[32];
  std::snprintf(data, sizeof(data), "%p", t->data);
  const std::string where = std::string(name) + "->byte_offset is " +
                            std::to_string(t->byte_offset) + ": with data at " + data + " and " +
                            std::to_string(span) + " bytes to reach, the tensor's bytes ";
  if (kUserAddressEnd == UINT64_MAX)
    return InvalidArgument(where + "would wrap around the address space");
  return InvalidArgument(where + "would end beyond 2^56, past any user address");
}

}  // namespace weft::api
