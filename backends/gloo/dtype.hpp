// Element sizes and the carrier types handed to Gloo.
//
// Gloo splits buffers into segments on multiples of the element size of the type given to
// setInput/setOutput, and calls the reduction on whole elements. The plugin therefore gives
// Gloo an unsigned integer type of the dtype's item size (a 16-byte struct for complex128):
// Gloo only moves the bytes, host->reduce interprets them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <weft/backend_plugin.h>

namespace weft::backends::gloo_plugin {

struct Carrier16 {
  uint64_t word[2];
};
static_assert(sizeof(Carrier16) == 16);

// Bytes per element of a dtype Weft can move (bits % 8 == 0, lanes == 1); 0 if it cannot.
size_t ItemBytes(DLDataType dtype);

// "dtype {code 2, bits 32, lanes 1}", for messages.
std::string DtypeText(DLDataType dtype);

// *out = a * b; false on overflow.
bool CheckedMul(uint64_t a, uint64_t b, uint64_t* out);
// *out = a + b; false on overflow.
bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* out);

// Calls f(std::type_identity<T>{}) with the carrier type of `item` bytes; false if none.
template <typename F>
bool WithCarrier(size_t item, F&& f) {
  switch (item) {
    case 1:
      f(std::type_identity<uint8_t>{});
      return true;
    case 2:
      f(std::type_identity<uint16_t>{});
      return true;
    case 4:
      f(std::type_identity<uint32_t>{});
      return true;
    case 8:
      f(std::type_identity<uint64_t>{});
      return true;
    case 16:
      f(std::type_identity<Carrier16>{});
      return true;
    default:
      return false;
  }
}

}  // namespace weft::backends::gloo_plugin
