// What a halo plan is asked for (SPEC §4.1–4.3): the C descriptor, checked and copied into
// C++ values that the plan keeps (the caller's explicit window tables may be freed).
#pragma once

#include <cstdint>
#include <vector>

namespace weft::placement::halo {

// Values equal the C ABI's WEFT_BOUNDARY_*.
enum class Boundary : int32_t {
  kNone = 0,
  kConstant = 1,
  kReflect = 2,
  kSymmetric = 3,
  kReplicate = 4,
  kPeriodic = 5,
};
enum class Stencil : int32_t { kBox = 0, kStar = 1 };
enum class Transport : int32_t { kAuto = 0, kPhases = 1, kNeighbor = 2 };

const char* BoundaryName(Boundary b);

struct DimSpec {
  int32_t dim = 0;  // tensor dim
  Boundary lo_rule = Boundary::kNone, hi_rule = Boundary::kNone;
  int64_t lo = 0, hi = 0;          // uniform mode: rows from the neighbours
  int64_t pad_lo = 0, pad_hi = 0;  // rows of physical boundary
  std::vector<int64_t> windows;    // explicit mode: begin, end per mesh position; else empty
  bool is_explicit() const { return !windows.empty(); }
};

struct HaloSpec {
  std::vector<DimSpec> dims;  // ascending tensor dims
  Stencil stencil = Stencil::kBox;
  Transport transport = Transport::kAuto;
  bool deterministic = false;
  double constant = 0.0;
};

}  // namespace weft::placement::halo
