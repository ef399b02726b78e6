// The raw reference of a halo pattern: the messages the halo plan sends, between the same
// neighbours with the same sizes, posted directly as non-blocking weft_send / weft_recv on the
// world (work handles, weft_work_wait) with no halo machinery. Box stencils go in dimension
// phases with corner forwarding (phase k sends the faces across windowed dim k, spanning the
// ghosts earlier phases filled); star stencils send every face (no corners) in one phase. A
// face that is not one run of memory is packed into (unpacked from) a staging buffer by plain
// copy loops, timed with the transfer; a neighbour that is this rank (a mesh dim of extent 1,
// periodic) is a local copy. Out of place, the interior copy (local -> padded) runs while the
// first phase's messages are in flight, as weft_halo_exchange must do it too, and a star
// stencil's corner cells (outside the owned box in two or more windowed dims) are zeroed, as
// the out-of-place exchange writes them.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <vector>

#include "tools/collbench/halo_box.hpp"
#include "tools/collbench/halo_pattern.hpp"

namespace weft::collbench {

class RawHalo {
 public:
  RawHalo(weft_context_t* ctx, const HaloPattern& p, const HaloGeometry& g, int32_t rank);

  // One exchange into `padded` (row-major, the padded shape); `local` (the local shape) is
  // read out of place and ignored in place, where padded's interior already holds the data.
  weft_status_t Run(const float* local, float* padded);

  int64_t recv_bytes() const { return recv_bytes_; }  // from other ranks, per exchange
  int64_t messages() const { return messages_; }      // messages sent to other ranks
  bool packs() const { return packs_; }               // some face is not contiguous

 private:
  struct Message {
    int32_t peer = 0;
    int64_t tag = 0;
    Box3 box;                    // in padded coordinates
    std::vector<float> staging;  // empty when the face is contiguous in its buffer
  };
  struct Phase {
    std::vector<Message> sends, recvs;
  };
  void AddFaces(const HaloPattern& p, const HaloGeometry& g, size_t k, const Dims3& coord);
  void AddCorners(const HaloPattern& p, const HaloGeometry& g);
  weft_status_t RunPhase(size_t i, const float* local, float* padded);
  // Sends to this rank: copied straight into the receive with the same tag.
  void CopySelf(const Message& send, const float* src, const Dims3& src_shape, const Dims3& shift,
                Phase& phase, float* padded);

  weft_context_t* ctx_;
  int32_t rank_;
  bool inplace_;
  Dims3 local_shape_{}, padded_shape_{}, interior_lo_{};  // interior_lo_: depth on windowed dims
  std::vector<Phase> phases_;
  std::vector<Box3> corners_;  // zeroed out of place (star)
  int64_t recv_bytes_ = 0, messages_ = 0;
  bool packs_ = false;
  std::vector<weft_work_t*> works_;
};

}  // namespace weft::collbench
