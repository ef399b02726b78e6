// The conv2d-fwd-bwd pattern (--pattern conv2d-fwd-bwd): the halo traffic of a 3x3 "same"
// convolution layer on an image [H, W, C=8] (channels last) sharded over a 2-D mesh (rows over
// mesh dim 0, columns over mesh dim 1), forward (weft_halo_exchange) and backward
// (weft_halo_accumulate, the input gradient's adjoint), with the plan the rules engine hands
// out: weft_rules_propagate("conv2d") on the image's layout, weft_strategy_input_halo. Next to
// it, the raw reference moves the same bytes between the same neighbours with weft_send /
// weft_recv: forward, rows then columns (the column faces packed, spanning the ghost rows the
// first phase filled, so corners travel through the faces), zero rows and columns at the
// image's edges, and the interior copy while the first phase's messages fly; backward, the
// same in reverse, each received face added into the rows it was read from.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/collbench/halo_box.hpp"

namespace weft::collbench {

class ConvCase {
 public:
  ConvCase() = default;
  ConvCase(const ConvCase&) = delete;
  ConvCase& operator=(const ConvCase&) = delete;
  ~ConvCase();

  // An image of about `bytes` per rank, 2:3 (rows:columns) overall; false with *error.
  // Collective-free.
  bool Init(weft_context_t* ctx, int64_t bytes, int32_t rank, int32_t nranks, std::string* error);

  // Forward: local from a closed form, padded poisoned. Backward: padded_grad from a closed
  // form of (rank, cell), local_grad poisoned.
  void Fill();
  weft_status_t Forward(bool raw);
  weft_status_t Backward(bool raw);
  // Cells that differ from the closed forms (forward: every padded cell; backward: every
  // local gradient cell, the sum over the ranks whose window holds it).
  int64_t CountWrongForward() const;
  int64_t CountWrongBackward() const;

  std::string shape() const;                              // "HxWxC"
  std::string local() const;                              // "hxwxC"
  int64_t block_bytes() const;                            // this rank's block
  int64_t recv_bytes() const { return recv_bytes_; }      // weft_plan_stats
  int64_t raw_recv_bytes() const { return raw_recv_; }    // the reference's, per exchange
  int64_t raw_messages() const { return raw_messages_; }  // the reference's, per exchange
  std::string plan() const;

 private:
  struct Face {
    int32_t peer = 0;
    Box3 send, recv;  // in padded coordinates
  };
  weft_status_t Exchange(const std::vector<Face>& faces, bool adjoint);
  bool MakePlan(weft_context_t* ctx, std::string* error);
  int32_t RankAt(int64_t r, int64_t c) const { return static_cast<int32_t>(r * mesh_[1] + c); }

  weft_context_t* ctx_ = nullptr;
  int32_t rank_ = 0;
  int64_t mesh_[2] = {1, 1}, coord_[2] = {0, 0};
  int64_t channels_ = 8;
  Dims3 global_{}, local_shape_{}, offset_{}, padded_shape_{};
  weft_mesh_t* mesh_handle_ = nullptr;
  weft_layout_t* layout_ = nullptr;
  weft_plan_t* plan_ = nullptr;
  std::vector<float> x_, padded_, gpad_, gx_, staging_send_, staging_recv_;
  std::vector<Face> rows_, cols_;  // the reference's phases
  int64_t recv_bytes_ = 0, raw_recv_ = 0, raw_messages_ = 0;
};

}  // namespace weft::collbench
