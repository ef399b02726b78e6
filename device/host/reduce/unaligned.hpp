// Element access for buffers that need not be aligned. A typedef may lower alignment with the
// GCC/Clang `aligned` attribute, so Unaligned<T>* accesses are well-defined (and UBSan-clean)
// at any address yet still compile to plain unaligned (vector) loads and stores, which memcpy
// based access does not always do for 8-byte floats under g++ 12's vectorizer.
#pragma once

namespace weft::device::host::detail {

template <class T>
struct UnalignedOf {
  typedef T type __attribute__((aligned(1)));
};
template <class T>
using Unaligned = typename UnalignedOf<T>::type;

}  // namespace weft::device::host::detail
