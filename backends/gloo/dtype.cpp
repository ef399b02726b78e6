#include "backends/gloo/dtype.hpp"

#include <limits>

#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::gloo_plugin {

size_t ItemBytes(DLDataType dtype) {
  if (dtype.lanes != 1 || dtype.bits == 0 || dtype.bits % 8 != 0) return 0;
  return dtype.bits / 8;
}

std::string DtypeText(DLDataType dtype) {
  return "dtype {code " + std::to_string(dtype.code) + ", bits " + std::to_string(dtype.bits) +
         ", lanes " + std::to_string(dtype.lanes) + "}";
}

bool CheckedMul(uint64_t a, uint64_t b, uint64_t* out) {
  return plugin_kit::CheckedBytes(a, b, out);
}

bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* out) {
  if (b > std::numeric_limits<uint64_t>::max() - a) return false;
  *out = a + b;
  return true;
}

}  // namespace weft::backends::gloo_plugin
