// Fixed upper bounds that let hot queries (a rank's local block) run without allocating.
#pragma once

#include <cstdint>

namespace weft::placement {

inline constexpr int32_t kMaxMeshDims = 16;    // mirrors WEFT_MAX_MESH_NDIM
inline constexpr int32_t kMaxTensorDims = 32;  // mirrors WEFT_MAX_TENSOR_NDIM
inline constexpr int64_t kMaxMeshSize = INT32_MAX;

}  // namespace weft::placement
