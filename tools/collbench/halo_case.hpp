// One halo row, Weft's side: the mesh, the layout (an even split of the pattern's tensor), the
// uniform periodic halo plan (made once per row) and this rank's local and padded blocks,
// filled from and checked against a closed form of the global index.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/collbench/halo_box.hpp"
#include "tools/collbench/halo_pattern.hpp"

namespace weft::collbench {

// What a star stencil's corner cells (outside the owned box in two or more windowed dims)
// must hold after an exchange: zeros (out of place) or the poison (in place: untouched).
enum class Corners { kZero, kPoison };

class HaloCase {
 public:
  HaloCase() = default;
  HaloCase(const HaloCase&) = delete;
  HaloCase& operator=(const HaloCase&) = delete;
  ~HaloCase();

  // Builds the mesh, layout, plan and buffers, and checks the plan's padded shape and origin
  // against the pattern's model; false with *error on failure. Collective-free.
  bool Init(weft_context_t* ctx, const HaloPattern& p, const HaloGeometry& g, int32_t rank,
            std::string* error);

  // Out of place: local from the closed form, padded poisoned. In place: padded's interior
  // from the closed form, its ghost cells poisoned.
  void Fill();
  weft_status_t Run();  // weft_halo_exchange(_inplace)
  // Padded cells of this rank that differ from the closed form of their (periodically
  // wrapped) global index; star corners as `corners` says.
  int64_t CountWrong(Corners corners) const;
  std::string Describe() const;
  int64_t recv_bytes() const { return recv_bytes_; }  // weft_plan_stats

  const float* local() const { return local_.data(); }
  float* padded() { return padded_.data(); }

 private:
  bool MakePlan(weft_context_t* ctx, const HaloGeometry& g, std::string* error);
  bool CheckPlan(std::string* error);
  // Calls f(padded cell offset, global flat index, windowed dims outside the owned box).
  template <class F>
  void ForEachPadded(F&& f) const;

  const HaloPattern* pattern_ = nullptr;
  int64_t depth_ = 0;
  Dims3 global_{}, local_shape_{}, padded_shape_{}, origin_{}, interior_lo_{};
  std::array<bool, 3> windowed_{};
  weft_mesh_t* mesh_ = nullptr;
  weft_layout_t* layout_ = nullptr;
  weft_plan_t* plan_ = nullptr;
  std::vector<float> local_, padded_;
  std::vector<int64_t> global_dims_, local_dims_, padded_dims_;  // as the ABI takes them
  DLTensor local_t_{}, padded_t_{};
  int64_t recv_bytes_ = 0;
};

}  // namespace weft::collbench
