// A rank's halo plan (SPEC §4.3): what it receives from whom, sends to whom, copies locally and
// fills, phase by phase. Built identically on every rank without communication: each rank
// enumerates the receive boxes of every rank of its exchange group and keeps those it serves.
//
// Transports. NEIGHBOR: one phase; every window cell reads from the rank that owns its source
// row (however many hops away) or from the boundary rule: a message per (owner, receiver).
// PHASES: one phase per windowed dim, in ascending dim order; phase k fills the cells that lie
// outside the owned range in dim k and inside the window in the earlier dims (inside the owned
// range in the later ones), reading the owners' padded blocks, which hold the earlier phases'
// rows: corners travel through the faces, so a box stencil needs 2 messages per sharded dim.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "placement/halo/windows.hpp"

namespace weft::placement::halo {

// Cells of the receiver's padded block (dst, global indices) read from cells of a source (src,
// global indices; the owner's block in NEIGHBOR and in phase 0, its padded block later), per dim
// in order (+1), mirrored (-1) or all from src's one row (0).
struct Region {
  Box dst;
  Box src;
  std::array<int8_t, kMaxTensorDims> step{};
  bool identity() const {
    for (int32_t d = 0; d < dst.ndim; ++d)
      if (step[static_cast<size_t>(d)] != 1) return false;
    return true;
  }
};

// The regions one rank pair exchanges in a phase, packed back to back in this order.
struct Message {
  int64_t peer = 0;  // mesh position of the other rank
  std::vector<Region> regions;
  int64_t elements = 0;  // sum of src volumes
};

struct Phase {
  int32_t dim = -1;  // tensor dim of a PHASES phase; -1 for NEIGHBOR's single phase
  std::vector<Message> recvs, sends;
  std::vector<Region> self;    // source rows this rank owns itself (boundary rules, wraps)
  std::vector<Box> constants;  // cells the boundary constant fills
};

struct HaloStats {
  int64_t phases = 0, messages = 0, send_bytes = 0, recv_bytes = 0, extra_bytes = 0;
};

class HaloPlan {
 public:
  // rank: the world rank to plan for (outside the mesh: a plan that does nothing).
  static Result<std::shared_ptr<const HaloPlan>> Create(LayoutPtr layout, HaloSpec spec,
                                                        int32_t rank);

  const Geometry& geometry() const { return geo_; }
  const Layout& layout() const { return geo_.layout(); }
  int32_t rank() const { return rank_; }
  bool in_mesh() const { return in_mesh_; }
  int64_t position() const { return position_; }
  Transport transport() const { return transport_; }
  // Whether every rank's window contains its owned range (the in-place form needs it).
  bool windows_contain_owned() const { return contain_owned_; }
  // The plan's mesh, row-major: the communicator's members, so that peer = mesh position.
  std::vector<int32_t> MeshRanks() const;

  const Box& owned() const { return owned_; }
  const Box& window() const { return window_; }
  const Box& interior() const { return interior_; }  // owned ∩ window
  const std::vector<Phase>& phases() const { return phases_; }
  const std::vector<Box>& skipped() const { return skipped_; }  // star: never sent
  uint64_t fingerprint() const { return fingerprint_; }
  HaloStats Stats() const;
  std::string Describe() const;

 private:
  explicit HaloPlan(Geometry g) : geo_(std::move(g)) {}

  Geometry geo_;
  int32_t rank_ = -1;
  bool in_mesh_ = false;
  int64_t position_ = 0;
  Transport transport_ = Transport::kNeighbor;
  bool contain_owned_ = true;
  Box owned_, window_, interior_;
  std::vector<Phase> phases_;
  std::vector<Box> skipped_;
  uint64_t fingerprint_ = 0;
};

}  // namespace weft::placement::halo
