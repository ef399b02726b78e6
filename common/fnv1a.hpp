// FNV-1a, 64 bits: the one fingerprint hash of the project (plans, halo plans, batched and
// cross-mesh plans, communicator keys). Every rank computes it alike from the same values,
// which is all a fingerprint needs; it is no defence against chosen inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace weft {

class Fnv1a {
 public:
  static constexpr uint64_t kOffsetBasis = 14695981039346656037ull;
  static constexpr uint64_t kPrime = 1099511628211ull;

  constexpr Fnv1a& Bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * kPrime;
    return *this;
  }
  constexpr Fnv1a& Text(std::string_view s) {
    for (char c : s) h_ = (h_ ^ static_cast<unsigned char>(c)) * kPrime;
    return *this;
  }
  // An integer as its 8 bytes, least significant first, whatever the host's byte order.
  constexpr Fnv1a& Int(int64_t v) {
    const auto u = static_cast<uint64_t>(v);
    for (int k = 0; k < 8; ++k) h_ = (h_ ^ ((u >> (8 * k)) & 0xffu)) * kPrime;
    return *this;
  }
  // A sequence of integers, its length first (so [1] [2, 3] and [1, 2] [3] differ).
  template <class Range>
  constexpr Fnv1a& Ints(const Range& values) {
    Int(static_cast<int64_t>(std::size(values)));
    for (const auto& v : values) Int(static_cast<int64_t>(v));
    return *this;
  }
  constexpr uint64_t value() const { return h_; }

 private:
  uint64_t h_ = kOffsetBasis;
};

}  // namespace weft
