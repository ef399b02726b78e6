// The single-process reference of the halo suite, written from SPEC §4 alone: every rank's
// window (uniform formula or explicit table), the boundary rules as a map from a global row to
// its source row, the star rule, and the convolution windows of SPEC §4.5. Nothing here calls
// the halo API: it only reads the layout's blocks (weft_layout_local_shape).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace halo {

struct DimSpec {
  int32_t dim = 0;
  int32_t rule_lo = WEFT_BOUNDARY_CONSTANT, rule_hi = WEFT_BOUNDARY_CONSTANT;
  int64_t lo = 0, hi = 0, pad_lo = 0, pad_hi = 0;
  std::vector<int64_t> windows;  // explicit mode: begin, end per mesh position; empty: uniform
};

struct HaloSpec {
  std::vector<DimSpec> dims;
  int32_t stencil = WEFT_STENCIL_BOX;
  int32_t transport = WEFT_HALO_TRANSPORT_AUTO;
  int32_t deterministic = 0;
  double constant = -3;
  std::string Describe() const;
};

// The descriptor of `spec`; `dims` holds its entries (and must outlive it).
weft_halo_desc_t MakeDesc(const HaloSpec& spec, std::vector<weft_halo_dim_t>* dims);

struct Box {
  std::vector<int64_t> begin, end;
  std::vector<int64_t> Extents() const;
  bool Contains(const std::vector<int64_t>& g) const;
};

// Blocks and windows of every row-major mesh position (explicit window tables are indexed by
// position; ranks maps a position to its world rank).
struct Geometry {
  std::vector<int64_t> global, mesh_shape;
  std::vector<int32_t> ranks;  // per position
  std::vector<weft_placement_t> placements;
  std::vector<std::vector<int64_t>> coord;  // per position
  std::vector<Box> owned, window;           // per position
  std::vector<int32_t> rule_lo, rule_hi;    // per tensor dim
  std::vector<bool> windowed;               // per tensor dim
  int32_t stencil = WEFT_STENCIL_BOX;
  double constant = 0;
  int32_t size() const { return static_cast<int32_t>(owned.size()); }
  int32_t PositionOf(int32_t world_rank) const;
  // Positions that exchange with each other: equal coordinates on every mesh dim that does
  // not shard a windowed tensor dim (SPEC §4.1).
  bool SameGroup(int32_t a, int32_t b) const;
  // Row-major index of the position over the Partial mesh dims (0 without any).
  int64_t PartialIndex(int32_t r) const;
};

Geometry MakeGeometry(const weft_mesh_t* mesh, const weft_layout_t* layout, const HaloSpec& spec);

// SPEC §4.1 uniform mode for a rank owning [a, b) of extent n.
void UniformWindow(int64_t a, int64_t b, int64_t n, const DimSpec& d, int64_t* begin, int64_t* end);

// SPEC §4.2: the row that global row g (possibly outside [0, n)) reads, or kConstantRow.
constexpr int64_t kConstantRow = INT64_MIN;
int64_t SourceRow(int64_t g, int64_t n, int32_t rule_lo, int32_t rule_hi);

enum class CellKind { kData, kConstant, kSkipped };
struct Cell {
  CellKind kind = CellKind::kData;
  std::vector<int64_t> src;  // global source element for kData
};
// What the padded cell at global index g of position r holds after an exchange.
Cell ExpectedCell(const Geometry& geo, int32_t r, const std::vector<int64_t>& g);

int64_t LinearIndex(const std::vector<int64_t>& global, const std::vector<int64_t>& g);

// SPEC §4.5 convolution on one dim of extent n: output extent (< 1: no output), and per piece
// (offset, size in piece order) its output count and input window [begin, end) (empty
// pieces and pieces without outputs get the empty window at their offset).
struct ConvOp {
  int64_t k = 1, s = 1, d = 1, pad_lo = 0, pad_hi = 0;
};
int64_t ConvOutExtent(int64_t n, const ConvOp& op);
struct ConvPieces {
  std::vector<int64_t> out_sizes, begin, end;
};
ConvPieces ConvWindows(int64_t n, const ConvOp& op, const std::vector<int64_t>& offsets,
                       const std::vector<int64_t>& sizes);

}  // namespace halo
