// A 1-D contiguous CPU DLTensor over a std::vector, for the loader tests' collectives.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/weft.h"

namespace loader_test {

template <class T>
DLDataType DTypeOf();
template <>
inline DLDataType DTypeOf<int32_t>() {
  return DLDataType{kDLInt, 32, 1};
}
template <>
inline DLDataType DTypeOf<double>() {
  return DLDataType{kDLFloat, 64, 1};
}

template <class T>
class Tensor {
 public:
  explicit Tensor(std::vector<T> v)
      : data(std::move(v)), shape_{static_cast<int64_t>(data.size())} {
    t_ = DLTensor{data.data(), {kDLCPU, 0}, 1, DTypeOf<T>(), shape_, nullptr, 0};
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  DLTensor* get() { return &t_; }

  std::vector<T> data;

 private:
  int64_t shape_[1];
  DLTensor t_{};
};

}  // namespace loader_test
